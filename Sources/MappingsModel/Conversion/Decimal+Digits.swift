package import Foundation
package import MappingsJSON

/// Foundation's decimals from their digits without Foundation's text round trip.
///
/// `Decimal(string:)` reads text through Foundation's scanner, and with two `description`
/// calls cost about 2 µs per value on the benchmark machine. A literal of at most 19 significant digits is built from its digits as a 64-bit significand and a power of ten,
/// which gives what `Decimal(string:)` gives (tested value for value against it); that stays
/// the path for everything else. (`ExactDecimal.decimal` uses it: a mapped decimal is an
/// `ExactDecimal`, which keeps its written text, and a typed model asks for Foundation's.)
extension Decimal {
    /// The Decimal that holds `literal` digit for digit, built from its digits; `nil` when they
    /// are more than 19 or the exponent is outside -128...127 (the caller then asks Foundation,
    /// which knows the edge cases).
    package init?(exactDigits literal: DecimalDigits) {
        guard literal.digits.count <= 19, (-128...127).contains(literal.exponent) else { return nil }
        var significand: UInt64 = 0
        for digit in literal.digits {
            let (times, overflowed) = significand.multipliedReportingOverflow(by: 10)
            guard !overflowed else { return nil }
            let (sum, carried) = times.addingReportingOverflow(UInt64(digit &- UInt8(ascii: "0")))
            guard !carried else { return nil }
            significand = sum
        }
        if significand == 0 {
            self = Decimal()
            return
        }
        self.init(
            sign: literal.negative ? .minus : .plus, exponent: literal.exponent, significand: Decimal(significand))
    }
}
