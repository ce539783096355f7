import Mappings
import MappingsTestSupport
import Testing

@Suite("fallback key paths and escapes")
struct FallbackKeyPathTests {
    private func rule(_ entry: String) throws -> Rule {
        try #require(try load(#"{ "$T": { "x": \#(entry) } }"#).context("$T")).rules[0]
    }

    @Test("an array of key paths: the first is the source, the others are fallbacks in order")
    func fallbacks() throws {
        let rule = try rule(#"{ "@keyPath": ["full_text", "extended_tweet.full_text", "text"] }"#)
        #expect(rule.source.components == [.key("full_text")])
        #expect(rule.fallbacks.map(\.components) == [[.key("extended_tweet"), .key("full_text")], [.key("text")]])
        #expect(rule.fallbacks.map(\.description) == ["extended_tweet.full_text", "text"])
    }

    @Test("a single key path, short or long, or an array of one, has no fallbacks")
    func single() throws {
        #expect(try rule(#""a.b""#).fallbacks.isEmpty)
        #expect(try rule(#"{ "@keyPath": "a.b" }"#).fallbacks.isEmpty)
        #expect(try rule(#"{ "@keyPath": ["a.b"] }"#).fallbacks.isEmpty)
    }

    @Test(
        "escapes: a backslash makes a dot part of the key, and forces a key where a keyword or an index would be",
        arguments: [
            (#"data.gcm\\.message_id"#, [PayloadKeyPath.Component.key("data"), .key("gcm.message_id")]),
            (#"a\\\\b"#, [.key(#"a\b"#)]),
            (#"items.\\-1"#, [.key("items"), .key("-1")]),
            (#"items.-1"#, [.key("items"), .index(-1)]),
            (#"items.\\0"#, [.key("items"), .key("0")]),
            (#"\\@x.y"#, [.key("@x"), .key("y")]),
            (#"\\@self"#, [.key("@self")]),
            (#"meta.\\@count"#, [.key("meta"), .key("@count")]),
            (#"a\\.b\\.c"#, [.key("a.b.c")]),
        ])
    func escapes(written: String, components: [PayloadKeyPath.Component]) throws {
        #expect(try rule(#"{ "@keyPath": "\#(written)" }"#).source.components == components)
    }

    @Test("a key with a dot reads back as a quoted member in payload paths")
    func payloadPath() throws {
        #expect(try rule(#""data.gcm\\.message_id""#).source.payloadPath(from: "$") == #"$.data["gcm.message_id"]"#)
    }

    @Test("an empty list of key paths is an error at the array, with an example")
    func emptyList() {
        #expect(
            failure(
                """
                {
                    "$T": { "text": { "@keyPath": [] } }
                }
                """) == """
                    error: "@keyPath" takes a key path or a list of them, not an empty array
                     --> main.mappings:2:35
                      |
                    2 |     "$T": { "text": { "@keyPath": [] } }
                      |                                   ^
                      = help: list the key paths to try in order, such as ["full_text", "text"]
                    """)
    }

    @Test("a list element that is not a string is an error at that element")
    func nonString() {
        #expect(
            failure(
                """
                {
                    "$T": { "text": { "@keyPath": ["full_text", 3] } }
                }
                """) == """
                    error: "@keyPath" lists key paths (strings), not a number
                     --> main.mappings:2:49
                      |
                    2 |     "$T": { "text": { "@keyPath": ["full_text", 3] } }
                      |                                                 ^
                      = help: write "@keyPath": "user.name" or "@keyPath": ["full_text", "text"]
                    """)
    }

    @Test("an unknown escape is an error at the key path that has it")
    func unknownEscape() {
        #expect(
            failure(
                #"""
                {
                    "$T": { "text": { "@keyPath": ["full_text", "data\\qx"] } }
                }
                """#) == #"""
                    error: the key path "data\qx" has an unknown escape "\q"
                     --> main.mappings:2:49
                      |
                    2 |     "$T": { "text": { "@keyPath": ["full_text", "data\\qx"] } }
                      |                                                 ^^^^^^^^^^
                      = help: a backslash escapes '.', '\', '@', '-' or a digit: \\ is a backslash in a key ("\\\\" in a JSON string)
                    """#)
    }

    @Test(
        "more malformed key paths, each an error with help",
        arguments: [
            (#""a\\""#, #"the key path "a\" ends with a lone backslash"#),
            (#"{ "@keyPath": ["a", "b..c"] }"#, #"the key path "b..c" has an empty component"#),
            (#"{ "@keyPath": ["a", "@x"] }"#, #"unknown key path operator "@x" in "@x""#),
            (#"{ "@keyPath": {} }"#, #""@keyPath" selects values into an object by key, but this object names none"#),
        ])
    func malformed(entry: String, message: String) {
        let text = failure(#"{ "$T": { "x": \#(entry) } }"#)
        #expect(text.hasPrefix("error: \(message)\n --> main.mappings:1:"), "\(text)")
        #expect(text.contains("= help: "), "\(text)")
    }

    @Test("an unknown operator suggests escaping it for a key")
    func operatorHelp() {
        #expect(
            failure(#"{ "$T": { "x": "meta.@x" } }"#).hasSuffix(
                #"= help: key path operators are @self, @first, @last and @count; for the key, escape it: \@x ("\\@x" in a JSON string)"#
            ))
    }
}
