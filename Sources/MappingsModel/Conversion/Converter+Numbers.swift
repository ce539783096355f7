import Foundation
import MappingsJSON

/// Converting to Int, Double and Decimal: exactly or not at all. A number (or numeric string)
/// that would lose digits, or fall outside the type's range, is a failure that says which.
extension Converter {
    @inline(__always)
    static func convertInt(_ value: JSONValue) -> ScalarConversion {
        switch value {
        case .integer(let integer): return .converted(.int(Int(integer)))
        case .double(let double):
            guard let exact = Int(exactly: double) else {
                return .failed(intFailure(value, DecimalDigits(double)))
            }
            return .converted(.int(exact))
        case .number(let number):
            guard let exact = number.int64 else { return .failed(intFailure(value, number.digits)) }
            return .converted(.int(Int(exact)))
        case .string(let string):
            let trimmed = string.trimmingSpaces
            guard let integer = Int(trimmed) else {
                let digits = isNumberLiteral(trimmed) ? DecimalDigits(literal: trimmed) : nil
                guard let exact = digits?.int64 else { return .failed(intFailure(value, digits)) }
                return .converted(.int(Int(exact)))
            }
            return .converted(.int(integer))
        default: return .failed(mismatch(value, .int))
        }
    }

    @inline(__always)
    static func convertDouble(_ value: JSONValue) -> ScalarConversion {
        switch value {
        case .integer(let integer):
            let double = Double(integer)
            guard Int64(exactly: double) == integer else {
                return .failed(doubleFailure(value, double))
            }
            return .converted(.double(double))
        case .double(let double): return .converted(.double(double))
        case .number(let number):
            guard number.isExactDouble else { return .failed(doubleFailure(value, number.double)) }
            return .converted(.double(number.double))
        case .string(let string):
            let trimmed = string.trimmingSpaces
            guard isNumberLiteral(trimmed), let digits = DecimalDigits(literal: trimmed), let double = Double(trimmed)
            else {
                return .failed("expected Double, found \(describe(value)), which is not a number")
            }
            guard DecimalDigits(double) == digits else {
                return .failed(doubleFailure(value, double))
            }
            return .converted(.double(double))
        default: return .failed(mismatch(value, .double))
        }
    }

    /// A number, or a numeric string, as the decimal it writes: its digits and scale as
    /// written (`1.10`, `"1.10"` and `110e-2` are all `1.10`), never rounded.
    @inline(__always)
    static func convertDecimal(_ value: JSONValue) -> ScalarConversion {
        switch value {
        case .integer(let integer): return .converted(.decimal(ExactDecimal(Int(integer))))
        case .double(let double):
            guard let decimal = ExactDecimal(format(double)) else { return .failed(decimalFailure(value)) }
            return .converted(.decimal(decimal))
        case .number(let number):
            guard let decimal = ExactDecimal(number.literal) else { return .failed(decimalFailure(value)) }
            return .converted(.decimal(decimal))
        case .string(let string):
            let trimmed = string.trimmingSpaces
            guard isNumberLiteral(trimmed) else {
                return .failed("expected Decimal, found \(describe(value)), which is not a number")
            }
            guard let decimal = ExactDecimal(trimmed) else { return .failed(decimalFailure(value)) }
            return .converted(.decimal(decimal))
        default: return .failed(mismatch(value, .decimal))
        }
    }

    /// How many characters of a payload value a message quotes; longer values are cut with `...`.
    package static let quotedLength = 40

    /// `text`, cut to `quotedLength` characters.
    package static func shortened(_ text: String) -> String {
        text.count > quotedLength ? String(text.prefix(quotedLength - 3)) + "..." : text
    }

    /// Whether `text` is a decimal number as JSON writes one (an optional '-' or '+' first).
    static func isNumberLiteral(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        if scalars.first == "-" || scalars.first == "+" { scalars = scalars.dropFirst() }
        let digits = scalars.prefix(while: { ("0"..."9").contains($0) })
        scalars = scalars.dropFirst(digits.count)
        var fraction = 0
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            fraction = scalars.prefix(while: { ("0"..."9").contains($0) }).count
            scalars = scalars.dropFirst(fraction)
        }
        guard digits.count + fraction > 0 else { return false }
        if scalars.first == "e" || scalars.first == "E" {
            scalars = scalars.dropFirst()
            if scalars.first == "-" || scalars.first == "+" { scalars = scalars.dropFirst() }
            let exponent = scalars.prefix(while: { ("0"..."9").contains($0) }).count
            guard exponent > 0 else { return false }
            scalars = scalars.dropFirst(exponent)
        }
        return scalars.isEmpty
    }

    /// Why a number (or numeric string) is no Int: a fraction, or a magnitude beyond Int64.
    static func intFailure(_ value: JSONValue, _ digits: DecimalDigits?) -> String {
        let found = "expected Int, found \(describe(value))"
        guard let digits else { return "\(found), which is not a whole number" }
        guard digits.isWhole else { return "\(found), which is not a whole number" }
        return
            "\(found), which is outside Int's range (\(Int.min) to \(Int.max)); declare it Decimal or String to keep it"
    }

    /// Why a number is no Double: beyond its range, or more digits than it keeps.
    static func doubleFailure(_ value: JSONValue, _ double: Double) -> String {
        let found = "expected Double, found \(describe(value))"
        guard double.isFinite else { return "\(found), which is outside Double's range; declare it Decimal or String" }
        return "\(found), which has more digits than a Double keeps (it would read as \(format(double))); "
            + "declare it Decimal or String to keep it"
    }

    /// Why a number is no Decimal.
    static func decimalFailure(_ value: JSONValue) -> String {
        "expected Decimal, found \(describe(value)), which has more digits than a Decimal keeps "
            + "(38 significant digits as written, exponents -128 to 127); declare it String or JSON to keep it"
    }
}

extension String {
    /// The text without the spaces around it (`CharacterSet.whitespaces`: tabs and Unicode
    /// spaces); itself, with no Foundation call, when it starts and ends with a visible ASCII
    /// character, as nearly every payload value does.
    var trimmingSpaces: String {
        guard let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last)
        else { return trimmingCharacters(in: .whitespaces) }
        return self
    }
}
