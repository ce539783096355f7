/// A number kept as the payload wrote it, because neither `JSONValue.integer` nor
/// `JSONValue.double` holds it as written.
///
/// That is `-0`, an integer beyond Int64 (`18446744073709551617`), a decimal with more digits than a
/// Double keeps (`123456789.123456789`), a magnitude beyond Double (`1e400`), or a literal the
/// writer would spell otherwise (`1.0`, `2.50`, `1E2`). Nothing is rounded until a conversion
/// asks for a type, and that conversion says when the type cannot hold the value.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal, as JSON text (`-12.50e3`).
    public let literal: String

    /// A number from JSON number text; `nil` when `literal` is not one.
    public init?(_ literal: String) {
        guard DecimalDigits(literal: literal, strict: true) != nil else { return nil }
        self.literal = literal
    }

    init(checked literal: String) {
        self.literal = literal
    }

    public var description: String { literal }

    /// The nearest double (infinite beyond Double's range).
    public var double: Double { Double(literal) ?? .nan }

    /// The exact decimal value.
    package var digits: DecimalDigits {
        DecimalDigits(literal: literal) ?? DecimalDigits(negative: false, digits: [], exponent: 0)
    }

    /// Whether the nearest double reads back as the same decimal value.
    public var isExactDouble: Bool {
        let double = double
        return double.isFinite && DecimalDigits(double) == digits
    }

    /// The value as an Int64, when it is a whole number in range (`1.0` and `1e2` are).
    public var int64: Int64? { digits.int64 }

    /// The shortest text that reads back as the same double, as the writer spells it: whole
    /// values below 10^15 without a fraction (`3`), others as Swift prints them (`0.1`, `1e+21`);
    /// negative zero keeps its sign (`-0.0`), which JSON can write and a double holds.
    package static func text(of double: Double) -> String {
        if double == 0, double.sign == .minus { return "-0.0" }
        if double.rounded() == double, abs(double) < 1e15 { return String(Int64(double)) }
        return "\(double)"
    }
}

extension JSONValue {
    /// The value of a JSON number literal (already checked to be one): an `integer` when it is
    /// written as a whole number that fits in 64 bits, a `double` when a double holds it and
    /// the writer spells it the same way, a kept `number` otherwise.
    package static func number(literal text: String) -> JSONValue {
        // `-0` is no integer: an Int64 would drop its sign.
        if let integer = Int64(text), integer != 0 || text.utf8.first != UInt8(ascii: "-") { return .integer(integer) }
        if let double = Double(text), double.isFinite, JSONNumber.text(of: double) == text { return .double(double) }
        return .number(JSONNumber(checked: text))
    }
}

extension JSONValue {
    /// A number a float computed (a Lua float, say), keeping its kind: whole values are written
    /// with `.0` (`1.0`, never `1`, which would read back as an integer), `-0.0` with its sign.
    package static func float(_ double: Double) -> JSONValue {
        guard double.isFinite else { return .double(double) }
        let text = JSONNumber.text(of: double)
        if text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") }) {
            return text == "-0.0" ? .number(JSONNumber(checked: text)) : .double(double)
        }
        return .number(JSONNumber(checked: text + ".0"))
    }
}

extension JSONValue {
    /// The exact decimal value of a number (`nil` for every other kind): `1`, `1.0` and `1e0`
    /// have the same one.
    package var decimalDigits: DecimalDigits? {
        switch self {
        case .integer(let integer): DecimalDigits(literal: String(integer))
        case .double(let double): DecimalDigits(double)
        case .number(let number): number.digits
        default: nil
        }
    }
}

/// A decimal number as sign, significant digits and exponent: `-12.50e3` is `-`, `125`, `2`
/// (−125 × 10²). No leading or trailing zero is kept, so equal values have equal digits; zero
/// has no digits.
package struct DecimalDigits: Hashable {
    package var negative: Bool
    /// ASCII digits, without leading or trailing zeros.
    package var digits: [UInt8]
    package var exponent: Int

    init(negative: Bool, digits: [UInt8], exponent: Int) {
        self.negative = negative
        self.digits = digits
        self.exponent = exponent
    }

    /// Reads a decimal literal; `nil` when it is not one. `strict` is JSON's grammar; otherwise
    /// a leading `+`, and a '.' with digits on one side only (`.5`, `5.`), are taken too.
    package init?(literal: String, strict: Bool = false) {
        let bytes = Array(literal.utf8)
        var index = 0
        func run() -> Range<Int> {
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
            return start..<index
        }
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || (!strict && bytes[index] == UInt8(ascii: "+")) {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        let integer = run()
        var fraction = index..<index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            fraction = run()
            guard !strict || !fraction.isEmpty else { return nil }
        }
        guard integer.count + fraction.count > 0, !strict || !integer.isEmpty else { return nil }
        if strict, integer.count > 1, bytes[integer.lowerBound] == UInt8(ascii: "0") { return nil }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let written = run()
            guard !written.isEmpty else { return nil }
            for position in written {
                // Beyond a billion the value is far outside every type: keep the order of magnitude only.
                exponent = min(exponent * 10 + Int(bytes[position] - 48), 1_000_000_000)
            }
            if exponentNegative { exponent = -exponent }
        }
        guard index == bytes.count else { return nil }
        var all = Array(bytes[integer]) + Array(bytes[fraction])
        exponent -= fraction.count
        let leading = all.prefix(while: { $0 == UInt8(ascii: "0") }).count
        all.removeFirst(leading)
        let trailing = all.reversed().prefix(while: { $0 == UInt8(ascii: "0") }).count
        all.removeLast(trailing)
        exponent += trailing
        if all.isEmpty {
            negative = false
            exponent = 0
        }
        self.init(negative: negative, digits: all, exponent: exponent)
    }

    /// The decimal value a double reads back as (its shortest round-trip text).
    package init?(_ double: Double) {
        guard double.isFinite else { return nil }
        self.init(literal: "\(double)")
    }

    /// The value as an Int64, when it is a whole number in range.
    package var int64: Int64? {
        guard !digits.isEmpty else { return 0 }
        guard exponent >= 0, digits.count + exponent <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for digit in digits + Array(repeating: UInt8(ascii: "0"), count: exponent) {
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (plus, o2) = times.addingReportingOverflow(UInt64(digit - 48))
            guard !o1, !o2 else { return nil }
            magnitude = plus
        }
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// Whether the value is a whole number.
    package var isWhole: Bool { exponent >= 0 }
}
