package import Foundation
package import MappingsJSON

/// Decimals to and from their digits without Foundation's text round trips.
///
/// `Decimal(string:)`, then `description` to check that no digit was lost, then `description`
/// again to write the value cost about 2 µs per value on the benchmark machine, more than
/// everything else a record of scalars needs. A literal of at most 19 significant digits is
/// built from its digits as a 64-bit significand and a power of ten, and a Decimal whose
/// significand fits 64 bits is written from it; both give what the Foundation calls give
/// (tested value for value against them), and those stay the path for everything else.
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

    /// Appends the same text as `description` (`-12.5`, `0.05`, `1200`) as UTF-8, written from
    /// the significand when it fits 64 bits, else (and for NaN) through `description`.
    package func appendText(to out: inout [UInt8]) {
        if isZero {
            out.append(UInt8(ascii: "0"))
            return
        }
        let significand = self.significand
        // A significand beyond 64 bits reads back as another number: the comparison catches it.
        guard !isNaN, case var mantissa = (significand as NSDecimalNumber).uint64Value, Decimal(mantissa) == significand
        else {
            out.append(contentsOf: description.utf8)
            return
        }
        var exponent = self.exponent
        while exponent < 0, mantissa % 10 == 0 {
            mantissa /= 10
            exponent += 1
        }
        // The significand's digits, least significant first.
        var digits: [UInt8] = []
        digits.reserveCapacity(20)
        while mantissa != 0 {
            digits.append(UInt8(ascii: "0") + UInt8(mantissa % 10))
            mantissa /= 10
        }
        if isSignMinus { out.append(UInt8(ascii: "-")) }
        if exponent >= 0 {
            out.append(contentsOf: digits.reversed())
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: exponent))
            return
        }
        let fraction = -exponent
        if digits.count > fraction {
            out.append(contentsOf: digits[fraction...].reversed())
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: digits[..<fraction].reversed())
        } else {
            out.append(contentsOf: [UInt8(ascii: "0"), UInt8(ascii: ".")])
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: fraction - digits.count))
            out.append(contentsOf: digits.reversed())
        }
    }
}
