import Foundation
import MappingsTestSupport
import Testing

@Suite("automatic entries (@keyStyle), through the tool")
struct KeyStyleCommandTests {
    static let example = ["--mappings", "Examples/language/keystyle.mappings", "--context", "$Article"]
    static let payload =
        #"{"headline": "Hi", "word_count": 300, "author": {"display_name": "Ann", "avatar_url": "https://a.example/ann.png", "followers": [{"display_name": "Bob"}]}}"#
    static let mapped =
        #"{"title":"Hi","wordCount":300,"author":{"displayName":"Ann","avatarURL":"https://a.example/ann.png","followers":[{"displayName":"Bob","avatarURL":null,"followers":null}]},"user2Name":null}"#

    @Test("map reads each property without an entry from its snake_case key, nested models too")
    func map() throws {
        let result = try ToolRunner.run(["map"] + Self.example, input: Self.payload)
        #expect(result.stderr == "")
        #expect(result.stdout == Self.mapped + "\n")
        #expect(result.status == 0)
    }

    @Test("a missing required automatic entry: exit 1, at its derived key, with the @keyStyle line")
    func missing() throws {
        let result = try ToolRunner.run(["map"] + Self.example, input: #"{"headline": "Hi", "author": {}}"#)
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                $.word_count: missing required value for Article.wordCount (Examples/language/keystyle.mappings:9)
                $.author.display_name: missing required value for Article.author.displayName (Examples/language/keystyle.mappings:9)

                """)
    }

    @Test("serialize writes the derived keys; mapping them again agrees")
    func serialize() throws {
        let back = try ToolRunner.run(["serialize"] + Self.example, input: Self.mapped)
        #expect(back.stderr == "")
        #expect(
            back.stdout
                == #"{"headline":"Hi","word_count":300,"author":{"display_name":"Ann","avatar_url":"https://a.example/ann.png","followers":[{"display_name":"Bob"}]}}"#
                + "\n")
        #expect(back.status == 0)
        let again = try ToolRunner.run(["map"] + Self.example, input: back.stdout)
        #expect(again.stdout == Self.mapped + "\n")
    }

    @Test("explain marks each automatic entry, pointing at the @keyStyle line")
    func explain() throws {
        let result = try ToolRunner.run(
            ["explain"] + Self.example,
            input: #"{"headline": "Hi", "word_count": 3, "author": {"display_name": "Ann"}}"#)
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                Article.title <- $.headline = "Hi"  [Examples/language/keystyle.mappings:11]
                Article.wordCount <- $.word_count = 3  [automatic snake_case, Examples/language/keystyle.mappings:9]
                Article.author <- $.author = {"display_name":"Ann"}  [automatic snake_case, Examples/language/keystyle.mappings:9]
                Article.author.displayName <- $.author.display_name = "Ann"  [automatic snake_case, Examples/language/keystyle.mappings:9]
                Article.author.avatarURL skipped: $.author.avatar_url missing, optional  [automatic snake_case, Examples/language/keystyle.mappings:9]
                Article.author.followers skipped: $.author.followers missing, optional  [automatic snake_case, Examples/language/keystyle.mappings:9]
                Article.user2Name skipped: $.user2_name missing, optional  [automatic snake_case, Examples/language/keystyle.mappings:9]
                result: {"title":"Hi","wordCount":3,"author":{"displayName":"Ann","avatarURL":null,"followers":null},"user2Name":null}

                """)
    }

    @Test("check reports an unknown style and a context without @class, each in place")
    func checkErrors() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/users.mappings": #"""
            {
                "@models": { "User": { "name": "String" } },
                "$User": { "@class": "User", "@keyStyle": "snakecase" },
                "$Raw": { "@keyStyle": "camelCase", "id": "id" }
            }
            """#
        ])
        let result = try ToolRunner.run(["check"], in: directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr == #"""
                error: unknown key style "snakecase"
                 --> contexts/users.mappings:3:47
                  |
                3 |     "$User": { "@class": "User", "@keyStyle": "snakecase" },
                  |                                               ^^^^^^^^^^^
                  = help: did you mean "snake_case"?

                error: "@keyStyle" derives entries from the properties of a model, but this context has no "@class"
                 --> contexts/users.mappings:4:15
                  |
                4 |     "$Raw": { "@keyStyle": "camelCase", "id": "id" }
                  |               ^^^^^^^^^^^
                  = help: add "@class": "MyModel" beside "@keyStyle", or remove "@keyStyle"

                mappings: 2 errors found

                """#)
    }

    @Test("the example's @tests pass")
    func tests() throws {
        let result = try ToolRunner.run(["check", "--mappings", "Examples/language/keystyle.mappings"])
        #expect(result.stdout == "ok: 1 context, 2 models in 1 file, 1 of 1 test passed\n")
        #expect(result.status == 0)
    }
}
