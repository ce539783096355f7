import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON

@Suite("mapping with fallback key paths and escaped keys")
struct FallbackMappingTests {
    private static let contexts = #"""
        {
            "@models": { "Tweet": { "text": "String", "lang": "String?", "messageID": "String?", "last": "String?" } },
            "$Tweet": {
                "@class": "Tweet",
                "text": { "@keyPath": ["full_text", "extended_tweet.full_text", "text"] },
                "lang": { "@keyPath": ["lang", "meta.lang"], "@defaultValue": "und" },
                "messageID": { "@keyPath": "data.gcm\\.message_id", "@optional": true },
                "last": { "@keyPath": "marks.\\-1", "@optional": true }
            }
        }
        """#

    private let mapper: Mapper

    init() throws {
        mapper = Mapper(catalog: try load(Self.contexts))
    }

    private func map(_ json: String) throws -> (String, [String]) {
        let result = try mapper.object(from: try JSONParser.parse(json), context: "$Tweet")
        return (JSONWriter.string(result.value), result.issues.map(\.description))
    }

    @Test(
        "the first key path present and not null wins",
        arguments: [
            (#"{"full_text": "a", "extended_tweet": {"full_text": "b"}, "text": "c"}"#, "a"),
            (#"{"full_text": null, "extended_tweet": {"full_text": "b"}, "text": "c"}"#, "b"),
            (#"{"extended_tweet": {"full_text": null}, "text": "c"}"#, "c"),
            (#"{"extended_tweet": {}, "text": "c"}"#, "c"),
        ])
    func firstPresent(payload: String, text: String) throws {
        let (json, issues) = try map(payload)
        #expect(issues == [])
        #expect(json.hasPrefix(#"{"text":"\#(text)""#), "\(json)")
    }

    @Test("none present: a missing required value at the first path, naming every path tried")
    func nonePresent() throws {
        let (_, issues) = try map(#"{"extended_tweet": null}"#)
        #expect(
            issues == [
                "$.full_text: missing required value for Tweet.text (tried full_text, extended_tweet.full_text, text) (main.mappings:5)"
            ])
    }

    @Test("a default applies only when no key path is present")
    func defaults() throws {
        #expect(try map(#"{"text": "t", "meta": {"lang": "fr"}}"#).0.contains(#""lang":"fr""#))
        #expect(try map(#"{"text": "t"}"#).0.contains(#""lang":"und""#))
    }

    @Test("escaped keys: a dot inside a key, and -1 as a key rather than the last index")
    func escapedKeys() throws {
        let (json, issues) = try map(#"{"text": "t", "data": {"gcm.message_id": "m1"}, "marks": {"-1": "minus one"}}"#)
        #expect(issues == [])
        #expect(json == #"{"text":"t","lang":"und","messageID":"m1","last":"minus one"}"#)
    }

    @Test("explain names the key path that won, or every path tried")
    func explain() throws {
        let context = try mapper.context("$Tweet")
        let found = mapper.explain(
            try JSONParser.parse(#"{"extended_tweet": {"full_text": "b"}, "data": {"gcm.message_id": "m"}}"#),
            using: context
        ).explanations
        #expect(
            found.map(\.description) == [
                #"Tweet.text <- $.extended_tweet.full_text (key path 2 of 3) = "b"  [main.mappings:5]"#,
                #"Tweet.lang = default ($.lang missing; tried lang, meta.lang)  [main.mappings:6]"#,
                #"Tweet.messageID <- $.data["gcm.message_id"] = "m"  [main.mappings:7]"#,
                #"Tweet.last skipped: $.marks missing, optional  [main.mappings:8]"#,
            ])
        #expect(found[0].keyPaths == ["full_text", "extended_tweet.full_text", "text"])
        #expect(found[0].keyPathIndex == 1)
        let missing = mapper.explain(try JSONParser.parse("{}"), using: context).explanations[0]
        #expect(
            missing.description
                == "Tweet.text FAILED at $.full_text: missing required value; tried full_text, extended_tweet.full_text, text  [main.mappings:5]"
        )
        #expect(missing.keyPathIndex == nil)
    }

    @Test("serialize writes to the first key path, and escaped keys as written")
    func serialize() throws {
        let mapped = try mapper.object(
            from: try JSONParser.parse(
                #"{"extended_tweet": {"full_text": "b"}, "meta": {"lang": "fr"}, "data": {"gcm.message_id": "m"}, "marks": {"-1": "z"}}"#
            ), context: "$Tweet")
        let back = try mapper.payload(from: mapped.value, context: "$Tweet")
        #expect(back.issues.isEmpty)
        #expect(
            JSONWriter.string(back.value)
                == #"{"full_text":"b","lang":"fr","data":{"gcm.message_id":"m"},"marks":{"-1":"z"}}"#)
        let again = try mapper.object(from: try JSONParser.parse(JSONWriter.string(back.value)), context: "$Tweet")
        #expect(again.issues.isEmpty)
        #expect(JSONWriter.string(again.value) == JSONWriter.string(mapped.value))
    }

    @Test("parsing on demand keeps every key path of a fallback entry")
    func demand() throws {
        let context = try mapper.context("$Tweet")
        let bytes = Array(
            #"{"skipped": [1, 2], "extended_tweet": {"full_text": "b", "other": 1}, "meta": {"lang": "fr"}}"#.utf8)
        let result = try mapper.object(fromJSON: bytes, using: context)
        #expect(result.issues.isEmpty)
        #expect(JSONWriter.string(result.value) == #"{"text":"b","lang":"fr","messageID":null,"last":null}"#)
    }

    @Test("a Swift host gives fallbacks to ContextBuilder.map; explain and serialize agree with the file form")
    func contextBuilder() throws {
        var definitions = Definitions()
        definitions.context("$Note") { note in
            note.map("text", from: "full_text", fallbacks: ["extended_tweet.full_text", "text"])
            note.map("id", from: #"data.gcm\.message_id"#)
        }
        let mapper = Mapper(
            catalog: try Catalog.load([], from: .memory([:]), definitions: definitions))
        let context = try mapper.context("$Note")
        let explained = mapper.explain(
            try JSONParser.parse(#"{"text": "t", "data": {"gcm.message_id": "m"}}"#), using: context)
        #expect(explained.result.issues.isEmpty)
        #expect(JSONWriter.string(explained.result.value) == #"{"text":"t","id":"m"}"#)
        #expect(explained.explanations[0].source == "$.text")
        #expect(explained.explanations[0].keyPathIndex == 2)
        let back = mapper.payload(from: explained.result.value, using: context)
        #expect(JSONWriter.string(back.value) == #"{"full_text":"t","data":{"gcm.message_id":"m"}}"#)
    }
}
