extension SyntaxNode {
    /// The node as a JSON value (numbers: exact integers when they fit in 64 bits, doubles otherwise).
    var jsonValue: JSONValue {
        switch kind {
        case .null: .null
        case .bool(let bool): .bool(bool)
        case .string(let string): .string(string)
        case .number(let text): Int64(text).map(JSONValue.integer) ?? .double(Double(text) ?? .nan)
        case .array(let elements): .array(elements.map(\.jsonValue))
        case .object(let members): .object(JSONObject(members.map { ($0.key, $0.value.jsonValue) }))
        }
    }
}
