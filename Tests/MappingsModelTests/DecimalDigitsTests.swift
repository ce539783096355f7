import Foundation
import MappingsJSON
import MappingsModel
import MappingsTestSupport
import Testing

/// Decimals built from their digits give what Foundation's `Decimal(string:)` gives, value for
/// value.
@Suite("Foundation decimals without Foundation's text round trips")
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

    @Test("a literal's Decimal built from its digits is Foundation's")
    func sameAsFoundation() throws {
        for literal in Self.literals(count: 5000) {
            let digits = try #require(DecimalDigits(literal: literal))
            let foundation = try #require(Decimal(string: literal, locale: Locale(identifier: "en_US_POSIX")))
            guard let built = Decimal(exactDigits: digits) else {
                #expect(digits.digits.count > 19 || !(-128...127).contains(digits.exponent), "\(literal)")
                continue
            }
            #expect(built == foundation, "\(literal)")
        }
    }

    @Test("an exact decimal's Foundation decimal is the same value")
    func exactDecimalsBridge() throws {
        for literal in Self.literals(count: 2000) {
            guard let exact = ExactDecimal(literal) else { continue }
            let foundation = try #require(Decimal(string: literal, locale: Locale(identifier: "en_US_POSIX")))
            #expect(exact.decimal == foundation, "\(literal)")
        }
    }
}
