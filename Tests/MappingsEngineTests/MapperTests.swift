import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

@Suite("mapping payloads")
struct MapperTests {
    private static let contexts = """
        {
            "@models": {
                "User": { "name": "String", "age": "Int?", "tags": "[String]" },
                "Post": { "title": "String", "author": "User?", "comments": "[Comment]", "when": "Date?", "score": "Int" },
                "Comment": { "text": "String" }
            },
            "$User": {
                "@class": "User",
                "name": "name",
                "age": { "@keyPath": "age", "@optional": true },
                "tags": { "@keyPath": "tags", "@optional": true }
            },
            "$Post": {
                "@class": "Post",
                "title": "title",
                "author": { "@keyPath": "author", "@optional": true, "@object": { "@mappings": "$User" } },
                "comments": { "@keyPath": "comments", "@optional": true, "@object": { "@mappings": { "text": "body" } } },
                "when": { "@keyPath": "published", "@optional": true },
                "score": { "@keyPath": "votes.@count", "@defaultValue": 0 }
            },
            "$Front": {
                "@class": "Post",
                "comments": { "@keyPath": "comments", "@insertContentAtBegin": true, "@object": { "@mappings": { "text": "body" } } }
            },
            "$Reset": {
                "@class": "Post",
                "comments": { "@keyPath": "comments", "@clearContent": true, "@object": { "@mappings": { "text": "body" } } }
            },
            "$Shape": {
                "first": { "@keyPath": "items.@first.name" },
                "last": { "@keyPath": "items.-1.name" },
                "names": "items.name",
                "count": { "@keyPath": "items.@count", "@type": "String" },
                "whole": "@self.meta",
                "nested.when": { "@keyPath": "meta.at", "@type": "Date" }
            }
        }
        """

    private let mapper: Mapper

    init() throws {
        mapper = Mapper(catalog: try load(Self.contexts))
    }

    private func map(_ json: String, _ context: String) throws -> (String, [String]) {
        let result = try mapper.object(from: try JSONParser.parse(json), context: context)
        return (JSONWriter.string(result.value), result.issues.map(\.description))
    }

    @Test("every declared property is written in order, null where unset")
    func fullObject() throws {
        let (json, issues) = try map(
            #"{"title": "Hi", "author": {"name": "Ann", "age": "41"}, "comments": [{"body": "a"}, {"body": "b"}], "published": "2012-08-29T14:40:05Z", "votes": [1, 2, 3]}"#,
            "$Post")
        #expect(issues == [])
        #expect(
            json
                == #"{"title":"Hi","author":{"name":"Ann","age":41,"tags":null},"comments":[{"text":"a"},{"text":"b"}],"when":"2012-08-29T14:40:05Z","score":3}"#
        )
    }

    @Test("required values are reported with path, property and rule; null counts as missing; mapping goes on")
    func missingValues() throws {
        let (json, issues) = try map(
            #"{"title": null, "author": {"age": 3}, "comments": [{"body": "x"}, {}]}"#, "$Post")
        #expect(
            json
                == #"{"title":null,"author":{"name":null,"age":3,"tags":null},"comments":[{"text":"x"},{"text":null}],"when":null,"score":0}"#
        )
        #expect(
            issues == [
                "$.title: missing required value for Post.title: the payload has null there (main.mappings:15)",
                "$.author.name: missing required value for Post.author.name (main.mappings:9)",
                "$.comments[1].body: missing required value for Post.comments[1].text (main.mappings:17)",
            ])
    }

    @Test("impossible conversions are issues with the expected and found types, never a zero")
    func conversionIssues() throws {
        let result = try mapper.object(
            from: try JSONParser.parse(#"{"title": "t", "author": {"name": "a", "age": "old", "tags": ["x", {}]}}"#),
            context: "$Post")
        #expect(result.issues.map(\.kind) == [.conversionFailed, .conversionFailed])
        #expect(result.issues.map(\.path) == ["$.author.age", "$.author.tags[1]"])
        #expect(result.issues.map(\.property) == ["Post.author.age", "Post.author.tags[1]"])
        #expect(result.issues[0].value == "string \"old\"")
        #expect(JSONWriter.string(result.value).contains(#""age":null"#))
    }

    @Test("key path operators and fan-out; a context without @class builds JSON with @type conversions")
    func keyPaths() throws {
        let (json, issues) = try map(
            #"{"items": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "meta": {"at": 0, "x": [1]}}"#, "$Shape")
        #expect(issues == [])
        #expect(
            json
                == #"{"first":"a","last":"c","names":["a","b","c"],"count":"3","whole":{"at":0,"x":[1]},"nested":{"when":"1970-01-01T00:00:00Z"}}"#
        )
    }

    @Test("a key path through a scalar is an invalid source, not a crash")
    func throughScalar() throws {
        let (_, issues) = try map(#"{"items": "nope", "meta": 3}"#, "$Shape")
        #expect(issues.first == "$.items: cannot read @first from string \"nope\" (main.mappings:30)")
    }

    @Test(
        "populating an existing object: untouched properties stay, collections append, nested objects update in place")
    func populate() throws {
        let existing = try mapper.existingObject(
            from: try JSONParser.parse(
                #"{"title": "old", "author": {"name": "Ann", "age": 41}, "comments": [{"text": "first"}], "score": 7}"#),
            context: "$Post")
        let result = try mapper.map(
            try JSONParser.parse(#"{"title": "new", "author": {"name": "Bob"}, "comments": [{"body": "second"}]}"#),
            into: existing.value, context: "$Post")
        #expect(result.issues == [])
        #expect(
            JSONWriter.string(result.value)
                == #"{"title":"new","author":{"name":"Bob","age":41,"tags":null},"comments":[{"text":"first"},{"text":"second"}],"when":null,"score":0}"#
        )
        let front = try mapper.map(
            try JSONParser.parse(#"{"comments": [{"body": "a"}, {"body": "b"}]}"#), into: existing.value,
            context: "$Front")
        #expect(JSONWriter.string(front.value).contains(#""comments":[{"text":"a"},{"text":"b"},{"text":"first"}]"#))
        let reset = try mapper.map(
            try JSONParser.parse(#"{"comments": [{"body": "a"}]}"#), into: existing.value, context: "$Reset")
        #expect(JSONWriter.string(reset.value).contains(#""comments":[{"text":"a"}]"#))
    }

    @Test("objects from an array; a non-array is an invalid source")
    func many() throws {
        let result = try mapper.objects(from: try JSONParser.parse(#"[{"name": "a"}, {"age": 1}]"#), context: "$User")
        #expect(
            JSONWriter.string(result.value)
                == #"[{"name":"a","age":null,"tags":null},{"name":null,"age":1,"tags":null}]"#)
        #expect(result.issues.map(\.path) == ["$[1].name"])
        let wrong = try mapper.objects(from: .object(JSONObject()), context: "$User")
        #expect(wrong.issues.map(\.kind) == [.invalidSource])
    }

    @Test("a failing transformer is an issue for that value, even on an optional entry")
    func failingTransformer() throws {
        var transformers = TransformerRegistry()
        transformers.register(className: "T", selector: "fail") { _, _ in
            throw MappingsError.transformerFailed("no luck")
        }
        let catalog = try Catalog.load(
            ["m.mappings"],
            from: .memory([
                "m.mappings":
                    #"{ "$X": { "a": { "@keyPath": "a", "@optional": true, "@transformClass": "T", "@transformSelector": "fail:" }, "b": "b" } }"#
            ]),
            transformers: transformers)
        let result = try Mapper(catalog: catalog).object(
            from: try JSONParser.parse(#"{"a": 1, "b": 2}"#), context: "$X")
        #expect(result.issues.map(\.description) == ["$.a: T.fail failed: no luck (m.mappings:1)"])
        #expect(JSONWriter.string(result.value) == #"{"b":2}"#)
    }

    @Test("a [String: Model] property maps each member with @object; existing keys stay unless @clearContent")
    func dictionaryOfObjects() throws {
        let catalog = try load(
            """
            {
                "@models": { "U": { "name": "String" }, "G": { "members": "[String: U]" } },
                "$G": { "@class": "G", "members": { "@keyPath": "members", "@object": { "@class": "U", "@mappings": { "name": "n" } } } },
                "$Reset": { "@class": "G", "members": { "@keyPath": "members", "@clearContent": true, "@object": { "@class": "U", "@mappings": { "name": "n" } } } }
            }
            """)
        let mapper = Mapper(catalog: catalog)
        let first = try mapper.object(
            from: try JSONParser.parse(#"{"members": {"a": {"n": "x"}, "b": {}}}"#), context: "$G")
        #expect(JSONWriter.string(first.value) == #"{"members":{"a":{"name":"x"},"b":{"name":null}}}"#)
        #expect(
            first.issues.map(\.description) == [
                #"$.members.b.n: missing required value for G.members["b"].name (main.mappings:3)"#
            ])
        let next = try JSONParser.parse(#"{"members": {"b": {"n": "y"}, "c d": {"n": "z"}}}"#)
        let merged = try mapper.map(next, into: first.value, context: "$G")
        #expect(
            JSONWriter.string(merged.value) == #"{"members":{"a":{"name":"x"},"b":{"name":"y"},"c d":{"name":"z"}}}"#)
        let reset = try mapper.map(next, into: first.value, context: "$Reset")
        #expect(JSONWriter.string(reset.value) == #"{"members":{"b":{"name":"y"},"c d":{"name":"z"}}}"#)
        let wrong = try mapper.object(from: try JSONParser.parse(#"{"members": [1]}"#), context: "$G")
        #expect(wrong.issues.map(\.kind) == [.invalidSource])
    }

    @Test("issues inside a fan-out name the element they come from, not [*]")
    func fanOutPaths() throws {
        let (_, issues) = try map(
            #"{"title": "t", "author": {"name": "a"}, "comments": [{"body": "x"}, {"body": {}}]}"#, "$Post")
        #expect(issues == ["$.comments[1].body: expected String, found object of 0 keys (main.mappings:17)"])
        let shape = try load(
            #"{ "@models": { "S": { "names": "[String]" } }, "$S": { "@class": "S", "names": "items.name" } }"#)
        let result = try Mapper(catalog: shape).object(
            from: try JSONParser.parse(#"{"items": [{"name": "a"}, {"name": 2.5}, {"name": []}, {"x": 1}]}"#),
            context: "$S")
        #expect(result.issues.map(\.path) == ["$.items[2].name", "$.items[3].name"])
        #expect(JSONWriter.string(result.value) == #"{"names":["a","2.5",null,null]}"#)
        #expect(PathText.appending("[1][0].x", to: #"$.a[*]["k[*]"].b[*]"#) == #"$.a[1]["k[*]"].b[0].x"#)
    }

    @Test("an unknown context is an error with a suggestion")
    func unknownContext() {
        #expect(throws: MappingsError.self) { try mapper.object(from: .null, context: "$Usr") }
        do { _ = try mapper.object(from: .null, context: "$Usr") } catch {
            #expect(error.description == "error: no context named \"$Usr\"\n  = help: did you mean \"$User\"?")
        }
    }
}
