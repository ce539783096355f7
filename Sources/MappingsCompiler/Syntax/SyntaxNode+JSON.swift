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
        // The parser keeps one member a key (it reports the others), so lookups may take the one they find.
        case .object(let members): .object(JSONObject(uniqueMembers: members.map { ($0.key, $0.value.jsonValue) }))
        }
    }
}
