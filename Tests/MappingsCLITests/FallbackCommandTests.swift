import Foundation
import MappingsTestSupport
import Testing

@Suite("fallback key paths and escaped keys, through the tool")
struct FallbackCommandTests {
    static let example = ["--mappings", "Examples/language/fallbacks.mappings", "--context", "$Post"]
    static let extended =
        #"{"extended_tweet": {"full_text": "long"}, "text": "short", "data": {"gcm.message_id": "0:1"}}"#

    @Test("map takes the first key path present; a dotted key is read through its escape")
    func map() throws {
        let result = try ToolRunner.run(["map"] + Self.example, input: Self.extended)
        #expect(result.stderr == "")
        #expect(result.stdout == #"{"text":"long","lang":"und","messageID":"0:1"}"# + "\n")
        #expect(result.status == 0)
    }

    @Test("none present: exit 1, a missing required value at the first path that names every path tried")
    func missing() throws {
        let result = try ToolRunner.run(["map"] + Self.example, input: #"{"extended_tweet": null}"#)
        #expect(result.status == 1)
        #expect(result.stdout == #"{"text":null,"lang":"und","messageID":null}"# + "\n")
        #expect(
            result.stderr
                == "$.full_text: missing required value for Post.text (tried full_text, extended_tweet.full_text, text) (Examples/language/fallbacks.mappings:10)\n"
        )
    }

    @Test("serialize writes to the first key path and the dotted key as one member; mapping it again agrees")
    func serialize() throws {
        let mapped = try ToolRunner.run(["map"] + Self.example, input: Self.extended)
        let back = try ToolRunner.run(["serialize"] + Self.example, input: mapped.stdout)
        #expect(back.stderr == "")
        #expect(back.stdout == #"{"full_text":"long","lang":"und","data":{"gcm.message_id":"0:1"}}"# + "\n")
        #expect(back.status == 0)
        let again = try ToolRunner.run(["map"] + Self.example, input: back.stdout)
        #expect(again.stdout == mapped.stdout)
    }

    @Test("explain names the key path that won, or every path tried")
    func explain() throws {
        let found = try ToolRunner.run(["explain"] + Self.example, input: Self.extended)
        #expect(found.status == 0)
        #expect(
            found.stdout == """
                Post.text <- $.extended_tweet.full_text (key path 2 of 3) = "long"  [Examples/language/fallbacks.mappings:10]
                Post.lang = default ($.lang missing; tried lang, metadata.iso_language_code)  [Examples/language/fallbacks.mappings:11]
                Post.messageID <- $.data["gcm.message_id"] = "0:1"  [Examples/language/fallbacks.mappings:13]
                result: {"text":"long","lang":"und","messageID":"0:1"}

                """)
        let missing = try ToolRunner.run(["explain"] + Self.example, input: "{}")
        #expect(missing.status == 1)
        #expect(
            missing.stdout.hasPrefix(
                "Post.text FAILED at $.full_text: missing required value; tried full_text, extended_tweet.full_text, text  [Examples/language/fallbacks.mappings:10]\n"
            ))
    }

    @Test("check reports an empty list, a non-string path, an unknown escape and an unescaped @ key, each in place")
    func checkErrors() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/posts.mappings": #"""
            {
                "@models": { "Post": { "text": "String", "id": "String" } },
                "$Post": {
                    "@class": "Post",
                    "text": { "@keyPath": [] },
                    "id": { "@keyPath": ["id_str", 7] }
                },
                "$Other": { "@class": "Post", "text": "data.gcm\\qid", "id": "meta.@x" }
            }
            """#
        ])
        let result = try ToolRunner.run(["check"], in: directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr == #"""
                error: "@keyPath" takes a key path or a list of them, not an empty array
                 --> contexts/posts.mappings:5:31
                  |
                5 |         "text": { "@keyPath": [] },
                  |                               ^
                  = help: list the key paths to try in order, such as ["full_text", "text"]

                error: "@keyPath" lists key paths (strings), not a number
                 --> contexts/posts.mappings:6:40
                  |
                6 |         "id": { "@keyPath": ["id_str", 7] }
                  |                                        ^
                  = help: write "@keyPath": "user.name" or "@keyPath": ["full_text", "text"]

                error: the key path "data.gcm\qid" has an unknown escape "\q"
                 --> contexts/posts.mappings:8:43
                  |
                8 |     "$Other": { "@class": "Post", "text": "data.gcm\\qid", "id": "meta.@x" }
                  |                                           ^^^^^^^^^^^^^^^
                  = help: a backslash escapes '.', '\', '@', '-' or a digit: \\ is a backslash in a key ("\\\\" in a JSON string)

                error: unknown key path operator "@x" in "meta.@x"
                 --> contexts/posts.mappings:8:66
                  |
                8 |     "$Other": { "@class": "Post", "text": "data.gcm\\qid", "id": "meta.@x" }
                  |                                                                  ^^^^^^^^^
                  = help: key path operators are @self, @first, @last and @count; for the key, escape it: \@x ("\\@x" in a JSON string)

                mappings: 4 errors found

                """#)
    }

    @Test("the example's @tests pass")
    func tests() throws {
        let result = try ToolRunner.run(["check", "--mappings", "Examples/language/fallbacks.mappings"])
        #expect(result.stdout == "ok: 1 context, 1 model in 1 file, 2 of 2 tests passed\n")
        #expect(result.status == 0)
    }
}
