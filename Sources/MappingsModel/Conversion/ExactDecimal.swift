public import Foundation
package import MappingsJSON

/// A decimal number as it was written: its sign, its digits and its scale, what a `Decimal`
/// property holds.
///
/// `1.10` stays `1.10`, as Python's `decimal`, Java's `BigDecimal` and PostgreSQL's `numeric`
/// keep it, and `-0.0` stays `-0.0`, as Python's `decimal` keeps it: the digits after the point
/// say how precise a value is (a price in cents, a measure to the millimetre), and the sinks'
/// column types are chosen to keep them. The text is always plain, without an exponent: an exponent moves the point, the
/// digits after the point are kept, and a whole number is written out in full.
///
/// ```
/// "1.10"    → 1.10        "-0.0"  → -0.0      "0.000" → 0.000
/// "1e2"     → 100         "1.0E+2" → 100      "1.50e-3" → 0.00150
/// "+.5"     → 0.5         "007"   → 7
/// ```
///
/// It keeps at most 38 significant digits as written (the fraction's trailing zeros count,
/// since they are kept; a whole number's do not) and the exponent of its last digit is
/// -128 to 127: the 38 digits of Arrow's decimal128, Spark's and SQL Server's decimals.
public struct ExactDecimal: Sendable, Hashable, CustomStringConvertible {
    /// The plain text: `-` for a negative value (negative zero too), the whole part without
    /// leading zeros (`0` when there is none), then `.` and the fraction's digits as written
    /// when there are any (`1.10`, `-0.0`, `0.000`, `100`, `0.00150`).
    public let text: String

    /// Significant digits kept at most.
    package static let maximumDigits = 38
    /// Exponents of the last digit kept.
    package static let exponents = -128...127

    private init(canonical text: String) {
        self.text = text
    }

    public var description: String { text }

    /// The decimal that `literal` writes (an optional `-` or `+`, digits with an optional `.`,
    /// an optional exponent), with its digits and scale; `nil` when it is no such literal or
    /// has more than a decimal keeps.
    public init?(_ literal: String) {
        let read =
            literal.utf8.withContiguousStorageIfAvailable { Self.read(UnsafeRawBufferPointer($0)) }
            ?? Array(literal.utf8).withUnsafeBytes { Self.read($0) }
        switch read {
        case .none: return nil
        case .some(.canonical): self.init(canonical: literal)
        case .some(.rewritten(let bytes)): self.init(canonical: String(decoding: bytes, as: UTF8.self))
        }
    }

    /// A whole number.
    public init(_ integer: Int) {
        self.init(canonical: String(integer))
    }

    /// Foundation's decimal, as its `description` writes it; `nil` for NaN.
    public init?(_ decimal: Decimal) {
        guard !decimal.isNaN else { return nil }
        self.init(decimal.description)
    }

    /// Whether it is negative (`-0.0` is).
    public var isNegative: Bool { text.utf8.first == UInt8(ascii: "-") }

    /// How many digits it has after the point (`1.10`: 2, `100`: 0).
    public var scale: Int {
        guard let point = text.utf8.firstIndex(of: UInt8(ascii: ".")) else { return 0 }
        return text.utf8.distance(from: point, to: text.utf8.endIndex) - 1
    }

    /// The value as sign, significant digits and exponent, without trailing zeros: `1.10` and
    /// `1.1` have the same.
    package var digits: DecimalDigits {
        DecimalDigits(literal: text) ?? DecimalDigits(literal: "0")!
    }

    /// Foundation's decimal of the same value (without the scale, and zero without a sign,
    /// which Foundation's decimal does not keep).
    public var decimal: Decimal {
        let digits = self.digits
        if let decimal = Decimal(exactDigits: digits) { return decimal }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? Decimal()
    }

    /// Whether `lhs` is less than `rhs` by value; equal values by their text (`1.1`, `1.10`),
    /// so that a sorted order is one order.
    package static func precedes(_ lhs: ExactDecimal, _ rhs: ExactDecimal) -> Bool {
        let (left, right) = (lhs.digits, rhs.digits)
        if left == right { return lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8) }
        // Zero has no digits and no sign in DecimalDigits.
        if left.digits.isEmpty { return !right.negative }
        if right.digits.isEmpty { return left.negative }
        if left.negative != right.negative { return left.negative }
        let smaller = magnitudePrecedes(left, right)
        return left.negative ? !smaller : smaller
    }

    /// Whether `lhs`'s magnitude is less than `rhs`'s (both nonzero, not equal).
    private static func magnitudePrecedes(_ lhs: DecimalDigits, _ rhs: DecimalDigits) -> Bool {
        // The power of ten of the first digit decides, then the digits from the first.
        let (leftTop, rightTop) = (lhs.digits.count + lhs.exponent, rhs.digits.count + rhs.exponent)
        if leftTop != rightTop { return leftTop < rightTop }
        return lhs.digits.lexicographicallyPrecedes(rhs.digits)
    }
}

extension ExactDecimal {
    private enum Reading {
        /// The literal is already the plain text.
        case canonical
        /// The plain text, written out.
        case rewritten([UInt8])
    }

    /// Reads a literal's parts, checks what a decimal keeps and says whether the literal is
    /// its own plain text.
    private static func read(_ bytes: UnsafeRawBufferPointer) -> Reading? {
        let count = bytes.count
        var index = 0
        func run() -> Range<Int> {
            let start = index
            while index < count, bytes[index] &- 48 < 10 { index += 1 }
            return start..<index
        }
        var negative = false
        var signed = false
        if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            signed = bytes[index] == UInt8(ascii: "+")
            index += 1
        }
        let whole = run()
        var fraction = index..<index
        var point = false
        if index < count, bytes[index] == UInt8(ascii: ".") {
            point = true
            index += 1
            fraction = run()
        }
        guard whole.count + fraction.count > 0 else { return nil }
        var exponent = 0
        var exponentWritten = false
        if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            exponentWritten = true
            index += 1
            var exponentNegative = false
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let written = run()
            guard !written.isEmpty else { return nil }
            for position in written {
                // Beyond a billion the value is far outside what a decimal keeps.
                exponent = min(exponent * 10 + Int(bytes[position] &- 48), 1_000_000_000)
            }
            if exponentNegative { exponent = -exponent }
        }
        guard index == count else { return nil }

        // The written digits, whole part then fraction, as one run: digit `p` (from 0) stands
        // for 10^(top - p).
        let all = whole.count + fraction.count
        func digit(_ position: Int) -> UInt8 {
            position < whole.count
                ? bytes[whole.lowerBound + position] : bytes[fraction.lowerBound + position - whole.count]
        }
        let top = whole.count - 1 + exponent
        let scale = max(0, fraction.count - exponent)
        guard scale <= -exponents.lowerBound else { return nil }
        guard let first = (0..<all).first(where: { digit($0) != UInt8(ascii: "0") }) else {
            // Zero: its sign and its scale.
            let plain = !signed && !exponentWritten && whole.count == 1 && (!point || !fraction.isEmpty)
            if plain { return .canonical }
            var text: [UInt8] = negative ? [UInt8(ascii: "-"), UInt8(ascii: "0")] : [UInt8(ascii: "0")]
            if scale > 0 {
                text.append(UInt8(ascii: "."))
                text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: scale))
            }
            return .rewritten(text)
        }
        let last = (0..<all).last(where: { digit($0) != UInt8(ascii: "0") })!
        // The last digit kept: the fraction's last as written, else the last nonzero one.
        let lowest = scale > 0 ? -scale : top - last
        let highest = top - first
        guard highest - lowest + 1 <= maximumDigits, exponents.contains(lowest) else { return nil }
        let plain =
            !signed && !exponentWritten && !whole.isEmpty && (whole.count == 1 || bytes[whole.lowerBound] != 48)
            && (!point || !fraction.isEmpty)
        if plain { return .canonical }
        var text: [UInt8] = []
        text.reserveCapacity(max(highest, 0) + scale + 3)
        if negative { text.append(UInt8(ascii: "-")) }
        func append(power: Int) {
            let position = top - power
            text.append(position >= 0 && position < all ? digit(position) : UInt8(ascii: "0"))
        }
        if highest >= 0 {
            for power in stride(from: highest, through: 0, by: -1) { append(power: power) }
        } else {
            text.append(UInt8(ascii: "0"))
        }
        if scale > 0 {
            text.append(UInt8(ascii: "."))
            for power in stride(from: -1, through: -scale, by: -1) { append(power: power) }
        }
        return .rewritten(text)
    }
}
