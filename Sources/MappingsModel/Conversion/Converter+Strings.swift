import MappingsJSON

/// Converting to String: strings as they are, numbers as their digits, booleans as `true` or `false`.
extension Converter {
    static func convertString(_ value: JSONValue, path: () -> String, failures: inout [ConversionFailure]) -> Value {
        switch value {
        case .string(let string): return .string(string)
        case .integer(let integer): return .string(String(integer))
        case .double(let double): return .string(format(double))
        case .number(let number): return .string(number.literal)
        case .bool(let bool): return .string(bool ? "true" : "false")
        default: return mismatch(value, .string, at: path, &failures)
        }
    }
}
