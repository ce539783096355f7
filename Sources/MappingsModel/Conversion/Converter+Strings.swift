import MappingsJSON

/// Converting to String: strings as they are, numbers as their digits, booleans as `true` or `false`.
extension Converter {
    @inline(__always)
    static func convertString(_ value: JSONValue) -> ScalarConversion {
        switch value {
        case .string(let string): return .converted(.string(string))
        case .integer(let integer): return .converted(.string(String(integer)))
        case .double(let double): return .converted(.string(format(double)))
        case .number(let number): return .converted(.string(number.literal))
        case .bool(let bool): return .converted(.string(bool ? "true" : "false"))
        default: return .failed(mismatch(value, .string))
        }
    }
}
