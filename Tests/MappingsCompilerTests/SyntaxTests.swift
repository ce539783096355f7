import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

@Suite("the .mappings syntax")
struct SyntaxTests {
    private func parse(_ text: String) -> (SyntaxNode?, String) {
        var parser = SyntaxParser(text: text, file: "t.mappings")
        let node = parser.parse()
        return (node, DiagnosticRenderer(sources: ["t.mappings": text]).render(parser.diagnostics))
    }

    @Test("line and block comments are whitespace, and block comments may span lines")
    func comments() throws {
        let (node, errors) = parse(
            """
            // a line comment
            { /* a block
               comment */ "a": 1, // after a member
              "b": /* inline */ "x" }
            """)
        #expect(errors == "")
        #expect(node?.jsonValue == .object(JSONObject([("a", .integer(1)), ("b", .string("x"))])))
    }

    @Test("trailing commas are accepted in objects and arrays")
    func trailingCommas() {
        let (node, errors) = parse(#"{ "a": [1, 2,], "b": {"c": true,}, }"#)
        #expect(errors == "")
        #expect(
            node?.jsonValue
                == .object(
                    JSONObject([
                        ("a", .array([.integer(1), .integer(2)])), ("b", .object(JSONObject([("c", .bool(true))]))),
                    ])))
    }

    @Test("numbers keep integer identity; other literals parse exactly")
    func scalars() {
        let (node, errors) = parse(#"[9223372036854775807, -0, 1.5, 1e3, "\u00e9\ud83d\ude00\n", null, false]"#)
        #expect(errors == "")
        #expect(
            node?.jsonValue
                == .array([
                    .integer(9_223_372_036_854_775_807), .number(JSONNumber("-0")!), .double(1.5),
                    .number(JSONNumber("1e3")!),
                    .string("é😀\n"),
                    .null,
                    .bool(false),
                ]))
    }

    @Test(
        "strict JSON otherwise: each error names the place and says what to do",
        arguments: [
            (
                "{ 'a': 1 }",
                """
                error: object keys are written in double quotes
                 --> t.mappings:1:3
                  |
                1 | { 'a': 1 }
                  |   ^
                  = help: replace the single quotes with double quotes
                """
            ),
            (
                "{\n  name: 1\n}",
                """
                error: object keys are written in double quotes
                 --> t.mappings:2:3
                  |
                2 |   name: 1
                  |   ^
                  = help: write "name"
                """
            ),
            (
                #"{ "a": 01 }"#,
                """
                error: numbers do not start with a leading zero
                 --> t.mappings:1:8
                  |
                1 | { "a": 01 }
                  |        ^
                """
            ),
            (
                #"{ "a": 1 "b": 2 }"#,
                """
                error: expected ',' or '}' after this value
                 --> t.mappings:1:9
                  |
                1 | { "a": 1 "b": 2 }
                  |         ^
                  = note: the next member starts here
                 --> t.mappings:1:10
                  |
                1 | { "a": 1 "b": 2 }
                  |          ^
                  = help: add a ',' here, between the members
                """
            ),
            (
                #"{ "a": ["x" {"b": 1}] }"#,
                """
                error: expected ',' or ']' after this value
                 --> t.mappings:1:12
                  |
                1 | { "a": ["x" {"b": 1}] }
                  |            ^
                  = note: the next element starts here
                 --> t.mappings:1:13
                  |
                1 | { "a": ["x" {"b": 1}] }
                  |             ^
                  = help: add a ',' here, between the elements
                """
            ),
            (
                "{ \"a\": [1, 2 }",
                """
                error: unexpected '}': expected ',' or ']'
                 --> t.mappings:1:14
                  |
                1 | { "a": [1, 2 }
                  |              ^
                """
            ),
            (
                "{ \"a\": \"x\\q\" }",
                """
                error: unknown escape sequence '\\q'
                 --> t.mappings:1:10
                  |
                1 | { "a": "x\\q" }
                  |          ^
                  = help: valid escapes are \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX
                """
            ),
            (
                "{ \"a\": 1 } x",
                """
                error: unexpected text after the end of the top-level value
                 --> t.mappings:1:12
                  |
                1 | { "a": 1 } x
                  |            ^
                  = help: a .mappings file holds exactly one JSON object
                """
            ),
            (
                "{ \"a\": 1 /* open",
                """
                error: this block comment is not closed
                 --> t.mappings:1:10
                  |
                1 | { "a": 1 /* open
                  |          ^
                  = help: add the closing '*/'
                """
            ),
            (
                "{ \"a\": tru }",
                """
                error: unexpected character 't': expected a value
                 --> t.mappings:1:8
                  |
                1 | { "a": tru }
                  |        ^
                """
            ),
            (
                "{ \"a\": \"\\ud800\" }",
                """
                error: a high surrogate \\uD800 must be followed by a low surrogate
                 --> t.mappings:1:9
                  |
                1 | { "a": "\\ud800" }
                  |         ^
                """
            ),
            (
                "",
                """
                error: the file is empty
                 --> t.mappings:1:1
                  |
                1 |\u{20}
                  | ^
                  = help: a .mappings file holds one JSON object: `{ … }`
                """
            ),
        ])
    func strictErrors(text: String, expected: String) {
        let (node, errors) = parse(text)
        #expect(node == nil)
        #expect(errors == expected)
    }

    @Test("an unclosed object points at where it opened")
    func unclosed() {
        let (_, errors) = parse("{\n  \"a\": {\n    \"b\": 1\n")
        #expect(
            errors == """
                error: unexpected end of file: this object is not closed
                 --> t.mappings:2:8
                  |
                2 |   "a": {
                  |        ^
                  = help: add the closing '}'
                """)
    }

    @Test("a duplicate key is reported with both places, and parsing goes on")
    func duplicateKeys() {
        let (node, errors) = parse(
            """
            {
                "name": "user.name",
                "name": "user.screen_name",
                "id": "id", "id": "x"
            }
            """)
        #expect(node != nil)
        #expect(
            errors == """
                error: duplicate key "name"
                 --> t.mappings:3:5
                  |
                3 |     "name": "user.screen_name",
                  |     ^^^^^^
                  = note: first defined here
                 --> t.mappings:2:5
                  |
                2 |     "name": "user.name",
                  |     ^^^^^^
                  = help: remove one of the two, or merge them into one

                error: duplicate key "id"
                 --> t.mappings:4:17
                  |
                4 |     "id": "id", "id": "x"
                  |                 ^^^^
                  = note: first defined here
                 --> t.mappings:4:5
                  |
                4 |     "id": "id", "id": "x"
                  |     ^^^^
                  = help: remove one of the two, or merge them into one
                """)
    }

    @Test("columns count characters, not bytes")
    func unicodeColumns() {
        let (_, errors) = parse("{ \"é😀\": 1, \"x\": ? }")
        #expect(errors.contains("t.mappings:1:17"))
    }

    @Test("invalid UTF-8 is an error at the offending byte")
    func invalidUTF8() {
        var parser = SyntaxParser(
            bytes: Array("{ \"a\": \"".utf8) + [0xC3, 0x28] + Array("\" }".utf8), file: "t.mappings")
        #expect(parser.parse() == nil)
        #expect(parser.diagnostics.map(\.message) == ["the file is not valid UTF-8"])
        #expect(parser.diagnostics.first?.location?.column == 9)
    }

    @Test("nesting deeper than the limit is refused, not a stack overflow")
    func depthLimit() {
        let deep = String(repeating: "[", count: 100_000)
        var parser = SyntaxParser(text: "{\"a\": \(deep)", file: "t.mappings")
        #expect(parser.parse() == nil)
        #expect(parser.diagnostics.first?.message == "objects and arrays nest more than 128 levels deep")
    }
}
