import Foundation
import Mappings
import Testing

@Suite("payload JSON: parsing and writing")
struct JSONTests {
    @Test("integers stay exact, doubles hold what they can as written, other numbers keep their literal")
    func parsing() throws {
        let value = try JSONParser.parse(
            #"{"b": [9223372036854775807, -9223372036854775808, 1.5, 1e2, 18446744073709551616], "a": "\u00e9\ud83d\ude00"}"#
        )
        #expect(
            value
                == .object(
                    JSONObject([
                        (
                            "b",
                            .array([
                                .integer(.max), .integer(.min), .double(1.5), .number(JSONNumber("1e2")!),
                                .number(JSONNumber("18446744073709551616")!),
                            ])
                        ),
                        ("a", .string("é😀")),
                    ])))
    }

    @Test("a duplicate key keeps its last value, in its first place")
    func duplicates() throws {
        #expect(
            try JSONParser.parse(#"{"a": 1, "b": 2, "a": 3}"#)
                == .object(JSONObject([("a", .integer(3)), ("b", .integer(2))])))
    }

    @Test(
        "invalid JSON names the line and column",
        arguments: [
            ("{\"a\": 1,}", "1:9: expected a key in double quotes"),
            ("{\n  \"a\": tru\n}", "2:8: unexpected character 't': a value was expected"),
            ("[1 2]", "1:4: expected ',' or ']' in an array"),
            ("// no comments", "1:1: unexpected character '/': a value was expected"),
            ("\"abc", "1:5: unexpected end of input in a string"),
            ("01", "1:2: numbers do not start with a leading zero"),
            ("{} x", "1:4: unexpected text after the JSON value"),
            ("", "1:1: unexpected end of input: a value was expected"),
        ])
    func failures(text: String, expected: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch { #expect(error.description == expected) }
    }

    @Test("deep nesting is refused, not a stack overflow")
    func depth() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(String(repeating: "[", count: 100_000)) }
    }

    @Test("writing round-trips and escapes what JSON needs")
    func writing() throws {
        let text = #"{"s":"a\"b\\c\n\u0001é","n":[1,-2,0.1,1e+21,true,null],"o":{}}"#
        #expect(JSONWriter.string(try JSONParser.parse(text)) == text)
    }

    @Test(
        "dates are written in UTC, with a fraction only when it is not zero",
        arguments: [
            (1_346_251_205.0, "2012-08-29T14:40:05Z"), (1_346_251_205.25, "2012-08-29T14:40:05.250Z"),
            (0, "1970-01-01T00:00:00Z"), (-1, "1969-12-31T23:59:59Z"), (951_782_400, "2000-02-29T00:00:00Z"),
        ])
    func dates(seconds: Double, expected: String) {
        #expect(JSONWriter.iso8601(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test("typed values: decimals keep their digits, URLs and UUIDs are strings")
    func typedValues() {
        #expect(
            JSONWriter.string(
                Value.array([
                    .decimal(Decimal(string: "12.340")!), .url(URL(string: "https://x.org/a")!),
                    .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), .int(9_007_199_254_740_993),
                ])) == #"[12.34,"https://x.org/a","E621E1F8-C36C-495A-93FC-0C247A3E6E5F",9007199254740993]"#)
    }
}
