import MappingsJSON
import MappingsModel

extension SyntaxNode {
    /// The node as a JSON value (numbers as the payload reader keeps them: see `JSONValue.number(literal:)`).
    var jsonValue: JSONValue {
        switch kind {
        case .null: .null
        case .bool(let bool): .bool(bool)
        case .string(let string): .string(string)
        case .number(let text): .number(literal: text)
        case .array(let elements): .array(elements.map(\.jsonValue))
        case .object(let members): .object(JSONObject(members.map { ($0.key, $0.value.jsonValue) }))
        }
    }
}
