import Foundation
import Mappings
import MappingsTestSupport
import Testing

@Suite("conversion of default values")
struct ConverterTests {
    private let converter = Converter(models: [
        "User": Model(
            name: "User", properties: [Property(name: "name", type: .string), Property(name: "age", type: .int)])
    ])

    private func convert(_ value: JSONValue, _ type: TypeReference) -> (Value, [ConversionFailure]) {
        var failures: [ConversionFailure] = []
        let result = converter.convert(value, to: type, failures: &failures)
        return (result, failures)
    }

    @Test(
        "conversions that succeed, exactly",
        arguments: [
            (JSONValue.integer(9_007_199_254_740_993), TypeReference.string, Value.string("9007199254740993")),
            (.double(0.1), .string, .string("0.1")),
            (.string("9223372036854775807"), .int, .int(9_223_372_036_854_775_807)),
            (.double(3), .int, .int(3)),
            (.string(" 2.5 "), .double, .double(2.5)),
            (.string("YES"), .bool, .bool(true)),
            (.string("0"), .bool, .bool(false)),
            (.integer(1), .bool, .bool(true)),
            (.string("12.340"), .decimal, .decimal(ExactDecimal("12.340")!)),
            (.string("https://example.com/a?b=c"), .url, .url(URL(string: "https://example.com/a?b=c")!)),
            (.string("2012-08-29T14:40:05Z"), .date, .date(Date(timeIntervalSince1970: 1_346_251_205))),
            (.string("2012-08-29T16:40:05.5+02:00"), .date, .date(Date(timeIntervalSince1970: 1_346_251_205.5))),
            (.string("Wed, 29 Aug 2012 14:40:05 +0000"), .date, .date(Date(timeIntervalSince1970: 1_346_251_205))),
            (.string("2012-08-29"), .date, .date(Date(timeIntervalSince1970: 1_346_198_400))),
            (.integer(1_346_251_205), .date, .date(Date(timeIntervalSince1970: 1_346_251_205))),
            (.null, .optional(.int), .null),
            (.array([.integer(1), .string("2")]), .array(.int), .array([.int(1), .int(2)])),
        ])
    func successes(value: JSONValue, type: TypeReference, expected: Value) {
        let (result, failures) = convert(value, type)
        #expect(failures == [])
        #expect(result == expected)
    }

    @Test(
        "impossible conversions fail with the expected and the found type, never a zero",
        arguments: [
            (
                JSONValue.string("12abc"), TypeReference.int,
                "expected Int, found string \"12abc\", which is not a whole number"
            ),
            (.double(2.5), .int, "expected Int, found number 2.5, which is not a whole number"),
            (.string("maybe"), .bool, "expected Bool, found string \"maybe\"; write true, false, yes, no, 1 or 0"),
            (.integer(2), .bool, "expected Bool, found number 2"),
            (.string("not a url"), .url, "expected URL, found string \"not a url\", which is not a valid URL"),
            (
                .string("2012-02-30"), .date,
                "expected Date, found string \"2012-02-30\"; dates are ISO 8601, RFC 2822 or Unix seconds, or set \"@dateFormat\""
            ),
            (.string("nan"), .double, "expected Double, found string \"nan\", which is not a number"),
            (.object(JSONObject()), .string, "expected String, found object of 0 keys"),
            (.null, .int, "expected Int, found null"),
        ])
    func failures(value: JSONValue, type: TypeReference, message: String) {
        let (_, failures) = convert(value, type)
        // The failing value is described beside the message, for reports.
        var expected = ConversionFailure(message: message)
        expected.partValue = Converter.describe(value)
        #expect(failures == [expected])
    }

    @Test("objects become models by property name; nested failures carry their path")
    func models() {
        let (value, failures) = convert(
            .object(JSONObject([("name", .string("Ann")), ("age", .string("old")), ("other", .bool(true))])),
            .model("User"))
        guard case .object(let user) = value else {
            Issue.record("expected an object")
            return
        }
        #expect(user["name"] == .string("Ann"))
        #expect(user["age"] == .null)
        var expected = ConversionFailure(
            relativePath: ".age", message: "expected Int, found string \"old\", which is not a whole number")
        expected.partValue = #"string "old""#
        #expect(failures == [expected])
    }
}

/// What a `Decimal` keeps is one rule, whatever the spelling of the number.
@Suite("Decimal's limits, by value")
struct DecimalLimitTests {
    static func converts(_ literal: String) -> Bool {
        var failures: [ConversionFailure] = []
        let converter = Converter(models: [:])
        for value in [JSONValue.number(literal: literal), .string(literal)] {
            failures = []
            _ = converter.convert(value, to: .decimal, failures: &failures)
            if !failures.isEmpty { return false }
        }
        return true
    }

    @Test(
        "at most 38 significant digits as written, exponents -128 to 127, however written",
        arguments: [
            ("1e127", true), ("10e126", true), ("0.1e128", true), ("1e128", false), ("10e127", false),
            ("100e126", false), ("1e-128", true), ("1e-129", false), ("0.1e-128", false),
            // Zeros after the point are kept, so they count: 1.0e-128 has its last digit at 10^-129.
            ("10e-129", false), ("0." + String(repeating: "0", count: 128), true),
            ("0." + String(repeating: "0", count: 129), false), ("1." + String(repeating: "0", count: 37), true),
            ("1." + String(repeating: "0", count: 38), false),
            (String(repeating: "9", count: 38), true), (String(repeating: "9", count: 39), false),
            ("1" + String(repeating: "0", count: 38), true),
            ("1" + String(repeating: "0", count: 37) + "1", false),
            ("340282366920938463463374607431768211455", false), ("-" + String(repeating: "7", count: 38), true),
            ("0." + String(repeating: "0", count: 40) + "1", true), ("1" + String(repeating: "0", count: 130), false),
        ])
    func limits(_ literal: String, _ kept: Bool) {
        #expect(Self.converts(literal) == kept, "\(literal)")
    }

    /// Random digits and exponents, each value in several spellings of the same digits and
    /// scale (leading zeros, the point moved with the exponent): all convert or none do, to
    /// one text.
    @Test("spellings of one written decimal convert alike")
    func spellings() {
        var random = SeededGenerator(seed: 0xDEC1)
        for _ in 0..<2_000 {
            let count = Int.random(in: 1...42, using: &random)
            var digits = (0..<count).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
            digits = "1" + digits.dropFirst() + (Bool.random(using: &random) ? "" : "7")
            let exponent = Int.random(in: -170...170, using: &random)
            let shift = Int.random(in: 0...3, using: &random)
            let spellings = [
                "\(digits)e\(exponent)", "\(String(repeating: "0", count: shift))\(digits)E\(exponent)",
                "0.\(digits)e\(exponent + digits.count)", "+\(digits).e\(exponent)",
            ]
            let answers = spellings.map(Self.converts)
            #expect(Set(answers).count == 1, "\(spellings) → \(answers)")
            let texts = Set(spellings.compactMap { ExactDecimal($0)?.text })
            #expect(texts.count <= 1, "\(spellings) → \(texts)")
        }
    }
}
