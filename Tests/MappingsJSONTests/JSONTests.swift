import Foundation
import Mappings
import MappingsTestSupport
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

    /// The categories of the JSONTest suite's parsing cases, written here as the project's own.
    @Test(
        "RFC 8259: what must be accepted is, with every number kept",
        arguments: [
            ("\u{FEFF}{\"a\": 1}", #"{"a":1}"#), (" [1] ", "[1]"), ("-0", "-0"), ("-0.0", "-0.0"), ("1E22", "1E22"),
            ("[-1e-400]", "[-1e-400]"), ("123e999999999999", "123e999999999999"), ("\"\\u0000\"", #""\u0000""#),
            (#""\ud834\udd1e""#, "\"𝄞\""), (#"{"":0,"a":[],"b":{}}"#, #"{"":0,"a":[],"b":{}}"#),
            ("\t\r\n null \n", "null"), (#""\/""#, #""/""#), ("[1e1,0.5e-1,-1.0E+2]", "[1e1,0.5e-1,-1.0E+2]"),
        ])
    func accepted(text: String, written: String) throws {
        #expect(JSONWriter.string(try JSONParser.parse(text)) == written)
    }

    @Test(
        "RFC 8259: what must be refused is, at its line and column",
        arguments: [
            ("[1,]", "1:4"), ("[,1]", "1:2"), ("{\"a\" 1}", "1:6"), ("{'a': 1}", "1:2"), ("[NaN]", "1:2"),
            ("[Infinity]", "1:2"), ("[.5]", "1:2"), ("[1.]", "1:4"), ("[1e]", "1:4"), ("[+1]", "1:2"),
            ("[-]", "1:3"), ("[0x1]", "1:3"), ("[\"\\x\"]", "1:3"), ("[\"\\u12\"]", "1:7"), ("[\"\t\"]", "1:3"),
            ("[\"\\ud800\"]", "1:9"), ("[\u{0C}1]", "1:2"), ("{\"a\":1 /* c */}", "1:8"), ("[1]]", "1:4"),
            ("\u{FEFF}\u{FEFF}[]", "1:2"), ("[true false]", "1:7"), ("nul", "1:1"), ("\"a\nb\"", "1:3"),
        ])
    func refused(text: String, position: String) {
        do {
            let value = try JSONParser.parse(text)
            Issue.record("\(text.debugDescription) was read as \(value)")
        } catch {
            #expect("\(error.line):\(error.column)" == position, "\(text.debugDescription): \(error)")
        }
    }

    @Test("bytes that are not UTF-8 are refused inside strings, wherever they are")
    func invalidUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22],
        ] {
            #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(bytes) }
        }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0xEF, 0xBB]) }
    }

    @Test("keys that differ only in Unicode normalization are two keys: parser, index, lookups, demand, output")
    func codePointKeys() throws {
        let nfc = "\u{E9}", nfd = "e\u{301}"
        let small = try JSONParser.parse(#"{"\#(nfc)": 1, "\#(nfd)": 2}"#)
        #expect(JSONWriter.string(small) == #"{"\#(nfc)":1,"\#(nfd)":2}"#)
        guard case .object(let object) = small else { return }
        #expect(object[nfc] == .integer(1) && object[nfd] == .integer(2))
        // Past 16 members the parser indexes keys; the duplicate check must still see two keys.
        let filler = (0..<20).map { #""k\#($0)": \#($0)"# }.joined(separator: ", ")
        let large = try JSONParser.parse(#"{\#(filler), "\#(nfc)": 1, "\#(nfd)": 2, "\#(nfc)": 3}"#)
        guard case .object(let big) = large else { return }
        #expect(big.count == 22 && big[nfc] == .integer(3) && big[nfd] == .integer(2))
        let catalog = try Catalog.load(
            ["k.mappings"],
            from: .memory(["k.mappings": #"{ "$K": { "a": "\#(nfc)", "b": "\#(nfd)", "c": "x.\#(nfd)" } }"#]))
        let mapper = Mapper(catalog: catalog)
        let payload = Array(#"{"\#(nfd)": 2, "\#(nfc)": 1, "x": {"\#(nfc)": 3, "\#(nfd)": 4}}"#.utf8)
        let demanded = try mapper.object(fromJSON: payload, using: mapper.context("$K"))
        #expect(JSONWriter.string(demanded.value) == #"{"a":1,"b":2,"c":4}"#)
    }

    @Test("deep nesting is refused, not a stack overflow")
    func depth() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(String(repeating: "[", count: 100_000)) }
    }

    @Test("escapes decode between runs of any text, multi-byte and surrogate pairs included")
    func escapes() throws {
        let cases: [(String, String)] = [
            (#""\"""#, "\""), (#""é\n""#, "é\n"), (#""\tü""#, "\tü"),
            (
                #""<a href=\"x\" rel=\"nofollow\">Twitter for iPhone<\/a>""#,
                #"<a href="x" rel="nofollow">Twitter for iPhone</a>"#
            ),
            (#""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 ✓ \u0000 z""#, "a\"b\\c/d\u{08}\u{0C}\n\r\té😀 ✓ \u{0} z"),
            (#""日本\u8a9e語""#, "日本語語"),
        ]
        for (json, expected) in cases {
            let value = try JSONParser.parse(json)
            #expect(value == .string(expected), "\(json)")
            if case .string(let text) = value { #expect(Array(text.utf8) == Array(expected.utf8), "\(json)") }
        }
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
                    .decimal(ExactDecimal("12.340")!), .url(URL(string: "https://x.org/a")!),
                    .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), .int(9_007_199_254_740_993),
                ])) == #"[12.340,"https://x.org/a","E621E1F8-C36C-495A-93FC-0C247A3E6E5F",9007199254740993]"#)
    }
}
