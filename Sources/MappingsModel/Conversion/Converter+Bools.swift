import MappingsJSON

/// Converting to Bool: booleans, the numbers 0 and 1, and the strings `true false yes no 1 0`
/// in any case.
extension Converter {
    @inline(__always)
    static func convertBool(_ value: JSONValue) -> ScalarConversion {
        switch value {
        case .bool(let bool): return .converted(.bool(bool))
        case .integer(0): return .converted(.bool(false))
        case .integer(1): return .converted(.bool(true))
        case .number(let number) where number.int64 == 0 || number.int64 == 1:
            return .converted(.bool(number.int64 == 1))
        case .string(let string):
            switch string.trimmingSpaces.lowercased() {
            case "true", "yes", "1": return .converted(.bool(true))
            case "false", "no", "0": return .converted(.bool(false))
            default:
                return .failed(
                    "expected Bool, found \(describe(value)); write true, false, yes, no, 1 or 0")
            }
        default: return .failed(mismatch(value, .bool))
        }
    }
}
