import Foundation
import MappingsJSON

extension Converter {
    /// How many characters of a payload value a message quotes; longer values are cut with `...`.
    package static let quotedLength = 40

    /// `text`, cut to `quotedLength` characters.
    package static func shortened(_ text: String) -> String {
        text.count > quotedLength ? String(text.prefix(quotedLength - 3)) + "..." : text
    }

    /// The Decimal that holds the decimal literal `text` digit for digit, or `nil` when Decimal
    /// cannot (more than 38 significant digits, or an exponent outside -128...127).
    static func exactDecimal(_ text: String) -> Decimal? {
        guard let digits = DecimalDigits(literal: text),
            let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
            DecimalDigits(literal: decimal.description) == digits
        else { return nil }
        return decimal
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
            + "(38 significant digits, exponents -128 to 127); declare it String or JSON to keep it"
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
