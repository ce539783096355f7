import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON

@Suite("mapping with automatic entries (@keyStyle)")
struct KeyStyleMappingTests {
    private static let contexts = #"""
        {
            "@models": {
                "User": { "displayName": "String", "avatarURL": "URL?", "friends": "[User]?" },
                "Post": { "title": "String", "wordCount": "Int", "author": "User", "user2Name": "String?" }
            },
            "$Post": {
                "@class": "Post",
                "@keyStyle": "snake_case",
                "title": "headline"
            }
        }
        """#

    private let mapper: Mapper

    init() throws {
        mapper = Mapper(catalog: try load(Self.contexts))
    }

    private static let payload = #"""
        {"headline": "Hi", "word_count": 3, "user2_name": "Zoe",
         "author": {"display_name": "Ann", "avatar_url": "https://a.example/a.png",
                    "friends": [{"display_name": "Bob"}]}}
        """#

    @Test("derived keys map every property without an entry, nested models by the same style")
    func map() throws {
        let result = try mapper.object(from: try JSONParser.parse(Self.payload), context: "$Post")
        #expect(result.issues.isEmpty)
        #expect(
            JSONWriter.string(result.value)
                == #"{"title":"Hi","wordCount":3,"author":{"displayName":"Ann","avatarURL":"https://a.example/a.png","friends":[{"displayName":"Bob","avatarURL":null,"friends":null}]},"user2Name":"Zoe"}"#
        )
    }

    @Test("a missing required automatic entry is an issue at its derived key, with the @keyStyle line")
    func missing() throws {
        let result = try mapper.object(
            from: try JSONParser.parse(#"{"headline": "Hi", "author": {}}"#), context: "$Post")
        #expect(
            result.issues.map(\.description) == [
                "$.word_count: missing required value for Post.wordCount (main.mappings:8)",
                "$.author.display_name: missing required value for Post.author.displayName (main.mappings:8)",
            ])
    }

    @Test("serialize writes the derived keys, and mapping them again gives the same object")
    func roundTrip() throws {
        let mapped = try mapper.object(from: try JSONParser.parse(Self.payload), context: "$Post")
        let back = try mapper.payload(from: mapped.value, context: "$Post")
        #expect(back.issues.isEmpty)
        #expect(
            JSONWriter.string(back.value)
                == #"{"headline":"Hi","word_count":3,"author":{"display_name":"Ann","avatar_url":"https://a.example/a.png","friends":[{"display_name":"Bob"}]},"user2_name":"Zoe"}"#
        )
        let again = try mapper.object(from: try JSONParser.parse(JSONWriter.string(back.value)), context: "$Post")
        #expect(again.issues.isEmpty)
        #expect(JSONWriter.string(again.value) == JSONWriter.string(mapped.value))
    }

    @Test("explain marks each automatic entry, and only those")
    func explain() throws {
        let explained = mapper.explain(
            try JSONParser.parse(#"{"headline": "Hi", "word_count": 3, "author": {"display_name": "Ann"}}"#),
            using: try mapper.context("$Post"))
        #expect(
            explained.explanations.map(\.description) == [
                #"Post.title <- $.headline = "Hi"  [main.mappings:9]"#,
                #"Post.wordCount <- $.word_count = 3  [automatic snake_case, main.mappings:8]"#,
                #"Post.author <- $.author = {"display_name":"Ann"}  [automatic snake_case, main.mappings:8]"#,
                #"Post.author.displayName <- $.author.display_name = "Ann"  [automatic snake_case, main.mappings:8]"#,
                #"Post.author.avatarURL skipped: $.author.avatar_url missing, optional  [automatic snake_case, main.mappings:8]"#,
                #"Post.author.friends skipped: $.author.friends missing, optional  [automatic snake_case, main.mappings:8]"#,
                #"Post.user2Name skipped: $.user2_name missing, optional  [automatic snake_case, main.mappings:8]"#,
            ])
        #expect(explained.explanations.map(\.keyStyle) == [nil] + Array(repeating: .snakeCase, count: 6))
    }

    @Test("a Swift host sets the style with ContextBuilder.keyStyle; explicit entries still win")
    func contextBuilder() throws {
        var definitions = Definitions()
        definitions.model("Tag", ["tagName": "String", "useCount": "Int?"])
        definitions.context("$Tag", class: "Tag") { tag in
            tag.keyStyle(.kebabCase)
            tag.map("useCount", from: "n", optional: true)
        }
        let mapper = Mapper(catalog: try Catalog.load([], from: .memory([:]), definitions: definitions))
        let context = try mapper.context("$Tag")
        let result = mapper.object(from: try JSONParser.parse(#"{"tag-name": "swift", "n": 2}"#), using: context)
        #expect(result.issues.isEmpty)
        #expect(JSONWriter.string(result.value) == #"{"tagName":"swift","useCount":2}"#)
        #expect(
            JSONWriter.string(mapper.payload(from: result.value, using: context).value)
                == #"{"n":2,"tag-name":"swift"}"#)
    }
}
