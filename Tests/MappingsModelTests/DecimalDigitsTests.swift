import Foundation
import MappingsJSON
import MappingsModel
import MappingsTestSupport
import Testing

/// Decimals built from their digits and written from their mantissa give what Foundation's
/// `Decimal(string:)` and `description` give, value for value.
@Suite("decimals without Foundation's text round trips")
struct DecimalDigitsTests {
    /// Random literals: up to 38 significant digits, exponents across the range, both signs,
    /// leading and trailing zeros (seeded, so a failure repeats).
    static func literals(count: Int) -> [String] {
        var generator = SeededGenerator(seed: 0x5eed)
        var literals = [
            "0", "-0", "0.0", "1", "-1", "10", "100.00", "0.05", "-0.001", "12.5", "1e5", "1.5e-7",
            "99999999999999999999999999999999999999", "-0.00000000000000000000000000000000000001",
            "340282366920938463463374607431768211455", "1234567890123456789.0123456789", "7e127", "7e-128",
        ]
        for _ in 0..<count {
            let length = Int.random(in: 1...38, using: &generator)
            var digits = (0..<length).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            let point = Int.random(in: 0...length, using: &generator)
            if point < length && Bool.random(using: &generator) {
                digits.insert(".", at: digits.index(digits.startIndex, offsetBy: point == 0 ? 0 : point))
                if digits.hasPrefix(".") { digits = "0" + digits }
            }
            let sign = Bool.random(using: &generator) ? "-" : ""
            let exponent = Bool.random(using: &generator) ? "e\(Int.random(in: -60...60, using: &generator))" : ""
            literals.append(sign + digits + exponent)
        }
        return literals
    }

    @Test("a literal's Decimal and its text are Foundation's")
    func sameAsFoundation() throws {
        for literal in Self.literals(count: 5000) {
            let digits = try #require(DecimalDigits(literal: literal))
            let foundation = try #require(Decimal(string: literal, locale: Locale(identifier: "en_US_POSIX")))
            var written: [UInt8] = []
            foundation.appendText(to: &written)
            #expect(String(decoding: written, as: UTF8.self) == foundation.description, "\(literal)")
            guard let built = Decimal(exactDigits: digits) else {
                #expect(digits.digits.count > 19 || !(-128...127).contains(digits.exponent), "\(literal)")
                continue
            }
            #expect(built == foundation, "\(literal)")
            var text: [UInt8] = []
            built.appendText(to: &text)
            #expect(String(decoding: text, as: UTF8.self) == foundation.description, "\(literal)")
        }
    }

    @Test("arithmetic results, not only parsed literals, are written as description writes them")
    func computedDecimals() {
        let values: [Decimal] = [
            Decimal(1) / Decimal(3), Decimal(2).significand, Decimal(-7) * Decimal(string: "0.25")!,
            Decimal(Int64.max) * Decimal(Int64.max), Decimal(sign: .minus, exponent: -3, significand: 120), .nan,
            Decimal(sign: .plus, exponent: -2, significand: Decimal(16170)), Decimal(UInt64.max), Decimal(1200),
            Decimal(sign: .plus, exponent: 5, significand: Decimal(UInt64.max)), Decimal(string: "0.000")!,
        ]
        for value in values {
            var text: [UInt8] = []
            value.appendText(to: &text)
            #expect(String(decoding: text, as: UTF8.self) == value.description)
        }
    }
}
