import Foundation
import Mappings
import Testing

/// A `Decimal` property keeps the digits and the scale a number was written with, from a
/// JSON number and from a string alike, and writes them without an exponent.
@Suite("decimals as written")
struct ExactDecimalTests {
    private static func converted(_ value: JSONValue) -> (text: String?, failures: [String]) {
        var failures: [ConversionFailure] = []
        let result = Converter(models: [:]).convert(value, to: .decimal, failures: &failures)
        guard case .decimal = result else { return (nil, failures.map(\.message)) }
        return (JSONWriter.string(result), failures.map(\.message))
    }

    @Test(
        "a number and a string of one literal write the same digits and scale",
        arguments: [
            ("1.10", "1.10"), ("-0.0", "-0.0"), ("0.000", "0.000"), ("-0.500", "-0.500"), ("100", "100"),
            ("-0", "-0"), ("0", "0"), ("12.5", "12.5"), ("1e2", "100"), ("1E2", "100"), ("1.0E+2", "100"),
            ("1.50e-3", "0.00150"), ("-12.50e1", "-125.0"), ("0.0e0", "0.0"), ("5e-1", "0.5"), ("1e+0", "1"),
            ("123456789012345678.90", "123456789012345678.90"),
            ("12345678901234567890.123456789012345678", "12345678901234567890.123456789012345678"),
            ("-99999999999999999999999999999999999999", "-99999999999999999999999999999999999999"),
            ("1." + String(repeating: "0", count: 37), "1." + String(repeating: "0", count: 37)),
            ("1e40", "1" + String(repeating: "0", count: 40)),
            ("1e-128", "0." + String(repeating: "0", count: 127) + "1"),
        ])
    func asWritten(literal: String, written: String) {
        #expect(Self.converted(.number(literal: literal)).text == written)
        #expect(Self.converted(.string(literal)).text == written)
    }

    @Test(
        "a string may be spelled more loosely than JSON: its plain text",
        arguments: [
            (" 1.10 ", "1.10"), ("+1.10", "1.10"), (".50", "0.50"), ("5.", "5"), ("007.10", "7.10"),
            ("-00.0", "-0.0"), ("+0", "0"), ("-.5E1", "-5"),
        ])
    func looseStrings(literal: String, written: String) {
        #expect(Self.converted(.string(literal)).text == written)
    }

    @Test(
        "more than a decimal keeps as written is an issue, never rounded",
        arguments: [
            "123456789012345678901234567890123456789", "1." + String(repeating: "0", count: 38),
            "0.1" + String(repeating: "0", count: 38), "1e128", "10e-129", "0.0e-128",
        ])
    func beyond(literal: String) {
        let message =
            "which has more digits than a Decimal keeps (38 significant digits as written, exponents -128 to 127); "
            + "declare it String or JSON to keep it"
        for value in [JSONValue.number(literal: literal), .string(literal)] {
            let (text, failures) = Self.converted(value)
            #expect(text == nil)
            #expect(failures == ["expected Decimal, found \(Converter.describe(value)), \(message)"])
        }
    }

    @Test("a JSON double converts to the digits it is written with")
    func doubles() {
        #expect(Self.converted(.double(0.1)).text == "0.1")
        #expect(Self.converted(.double(-0.0)).text == "-0.0")
        #expect(Self.converted(.double(1e21)).text == "1000000000000000000000")
        #expect(Self.converted(.integer(-42)).text == "-42")
    }

    @Test(
        "sign, scale and Foundation's value",
        arguments: [
            ("1.10", false, 2, "1.1"), ("-0.0", true, 1, "0"), ("0.000", false, 3, "0"), ("-0.500", true, 3, "-0.5"),
            ("100", false, 0, "100"), ("123456789012345678.90", false, 2, "123456789012345678.9"),
        ])
    func parts(literal: String, negative: Bool, scale: Int, foundation: String) throws {
        let decimal = try #require(ExactDecimal(literal))
        #expect(decimal.isNegative == negative)
        #expect(decimal.scale == scale)
        #expect(decimal.decimal == Decimal(string: foundation, locale: Locale(identifier: "en_US_POSIX")))
    }

    @Test("equal values with other scales are other decimals, ordered by value then text")
    func order() throws {
        let literals = ["1.10", "-0.500", "1.1", "0.000", "-0.0", "100", "-2", "0", "1e1", "0.05"]
        let decimals = try literals.map { try #require(ExactDecimal($0)) }
        #expect(ExactDecimal("1.10") != ExactDecimal("1.1"))
        #expect(
            decimals.sorted(by: ExactDecimal.precedes).map(\.text) == [
                "-2", "-0.500", "-0.0", "0", "0.000", "0.05", "1.1", "1.10", "10", "100",
            ])
    }

    @Test("a set of decimals keeps other scales of one value apart, in the order of their values")
    func sets() throws {
        var failures: [ConversionFailure] = []
        let payload = try JSONValue(parsing: Array(#"[1.10, "-0.0", 1.1, 0, 1.10, -2]"#.utf8))
        let set = Converter(models: [:]).convert(payload, to: .set(.decimal), failures: &failures)
        #expect(set.jsonText == "[-2,-0.0,0,1.1,1.10]")
        #expect(failures.map(\.message) == ["1.10 is already in the set (at [0]): kept once"])
    }

    @Test("Foundation's decimal converts as its description writes it")
    func fromFoundation() {
        #expect(ExactDecimal(Decimal(string: "12.5")!)?.text == "12.5")
        #expect(ExactDecimal(Decimal.nan) == nil)
        #expect(Decimal(string: "3.25")!.mappingValue == .decimal(ExactDecimal("3.25")!))
        #expect(Decimal.nan.mappingValue == .null)
    }

    @Test("an ExactDecimal is a mappable value: a decimal as it is, a whole number as its digits")
    func mappable() {
        var failures: [ConversionFailure] = []
        #expect(ExactDecimal.mapped(from: .decimal(ExactDecimal("-0.0")!), failures: &failures)?.text == "-0.0")
        #expect(ExactDecimal.mapped(from: .int(-7), failures: &failures)?.text == "-7")
        #expect(failures.isEmpty)
        #expect(ExactDecimal.mapped(from: .string("1"), failures: &failures) == nil)
        #expect(failures.count == 1)
        #expect(ExactDecimal("1.10")!.mappingValue.jsonText == "1.10")
    }
}
