import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// Parsing only what a context reads must change nothing but the time it takes: the same
/// objects, the same issues, the same errors for invalid JSON anywhere in the payload.
@Suite("parsing what the context reads")
struct DemandParsingTests {
    static let mappings = """
        { "@models": {
            "User": { "name": "String", "id": "Int", "tags": "[String]" },
            "Post": { "id": "Int", "user": "User", "users": "[User]", "byName": "[String: User]", "first": "String?",
                      "count": "Int?", "raw": "JSON?", "when": "Date?", "loose": "User?" } },
          "$User": { "@class": "User", "name": "name", "id": "id_str",
                     "tags": { "@keyPath": "entities.tags.text", "@optional": true } },
          "$Post": { "@class": "Post", "id": "id",
                     "user": { "@keyPath": "author", "@object": { "@mappings": "$User" } },
                     "users": { "@keyPath": "people", "@optional": true, "@object": { "@mappings": "$User" } },
                     "byName": { "@keyPath": "index", "@optional": true, "@object": { "@mappings": "$User" } },
                     "first": { "@keyPath": "people.@first.name", "@optional": true },
                     "count": { "@keyPath": "meta.@count", "@optional": true },
                     "raw": { "@keyPath": "extra", "@optional": true },
                     "when": { "@keyPath": "at", "@optional": true, "@dateFormat": "yyyy-MM-dd" },
                     "loose": { "@keyPath": "author", "@optional": true, "@object": { "@class": "User" } } },
          "$Tree": { "name": "name", "children": { "@keyPath": "kids", "@optional": true, "@object": { "@mappings": "$Tree" } } }
        }
        """

    static let payloads = [
        #"{"id": 1, "author": {"name": "Ann", "id_str": "7", "bio": "long text \u00e9", "entities": {"tags": [{"text": "a", "i": [1,2]}], "x": {}}}, "noise": [1, {"a": null}, "s"]}"#,
        #"{"id": "x", "author": {"id_str": 7, "entities": {"tags": "oops"}}, "people": [{"name": "B", "id_str": "2", "z": 1}, 3], "meta": {"a": 1, "b": 2, "c": [3]}}"#,
        #"{"id": 2, "author": "not an object", "index": {"k1": {"name": "C", "id_str": "3", "y": 2}, "k2": {"id_str": "q"}}, "extra": {"keep": [1, {"all": true}]}, "at": "2020-02-30"}"#,
        #"{"id": 3, "id": 4, "author": {"name": "D", "name": "E", "id_str": "5", "id_str": "6"}, "people": [], "at": "2021-03-04"}"#,
        #"{"name": "root", "kids": [{"name": "a", "kids": [{"name": "b", "skip": [[[{}]]]}]}, {"name": "c", "extra": "\ud83d\ude80"}]}"#,
        #"[{"id": 1, "author": {"name": "Ann", "id_str": "1"}}, {"id": 2}]"#,
    ]

    static func described(_ result: MappingResult) -> String {
        JSONWriter.string(result.value) + "\n" + result.issues.map(\.description).joined(separator: "\n")
    }

    @Test("the same objects and issues as a full parse", arguments: payloads)
    func sameResults(_ payload: String) throws {
        let catalog = try load(Self.mappings)
        let mapper = Mapper(catalog: catalog)
        let bytes = Array(payload.utf8)
        let full = try JSONParser.parse(bytes)
        for identifier in ["$Post", "$User", "$Tree"] {
            let context = try #require(catalog.context(identifier))
            #expect(
                Self.described(try mapper.object(fromJSON: bytes, using: context))
                    == Self.described(mapper.object(from: full, using: context)), "\(identifier)")
            #expect(
                Self.described(try mapper.objects(fromJSON: bytes, using: context))
                    == Self.described(mapper.objects(from: full, using: context)), "\(identifier) --many")
        }
    }

    @Test("a context reads only its keys; counted, indexed and dictionary values are kept whole")
    func demands() throws {
        let catalog = try load(Self.mappings)
        guard case .members(let members, _) = try #require(catalog.context("$Post")).demand else {
            Issue.record("$Post should read some keys only")
            return
        }
        #expect(members.map(\.key).sorted() == ["at", "author", "extra", "id", "index", "meta", "people"])
        #expect(members.first { $0.key == "meta" }?.demand == .everything)
        #expect(members.first { $0.key == "index" }?.demand == .everything)
        #expect(members.first { $0.key == "people" }?.demand == .everything)  // @first reads whole elements
        // "author" is read by $User and whole by the inline @class entry.
        #expect(members.first { $0.key == "author" }?.demand == .everything)
        guard case .members(let user, _)? = catalog.context("$User")?.demand else {
            Issue.record("$User should read some keys only")
            return
        }
        #expect(user.map(\.key).sorted() == ["entities", "id_str", "name"])
    }

    @Test("invalid JSON in a part the context skips fails exactly as a full parse does")
    func skippedErrors() throws {
        let catalog = try load(Self.mappings)
        let context = try #require(catalog.context("$User"))
        var generator = SeededGenerator(seed: 42)
        let valid = Self.payloads[0]
        let mapper = Mapper(catalog: catalog)
        var invalidSeen = 0
        for _ in 0..<3000 {
            var bytes = Array(valid.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                let replacement: [UInt8] = [
                    0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x01, 0xC3, 0xFF, 0x30, 0x65,
                ]
                bytes[position] = replacement.randomElement(using: &generator)!
            }
            let full = Result { () throws(JSONParser.Failure) in try JSONParser.parse(bytes) }
            let partial = Result { () throws(JSONParser.Failure) in try mapper.object(fromJSON: bytes, using: context) }
            switch (full, partial) {
            case (.failure(let expected), .failure(let got)):
                invalidSeen += 1
                #expect(got == expected, "\(String(decoding: bytes, as: UTF8.self))")
            case (.success(let value), .success(let result)):
                #expect(Self.described(result) == Self.described(mapper.object(from: value, using: context)))
            default:
                Issue.record("one parse failed, the other did not: \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(invalidSeen > 1000)
    }

    @Test("strings of every length and content read back as written (the 8-byte scan)")
    func strings() throws {
        var generator = SeededGenerator(seed: 7)
        let pieces: [String] = ["a", "é", "\"", "\\", "\n", "\u{01}", "🚀", "東", " ", "z", "\u{7F}", "/"]
        for _ in 0..<2000 {
            let length = Int.random(in: 0...40, using: &generator)
            let text = (0..<length).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let json = JSONWriter.string(JSONValue.object(JSONObject([("k", .string(text))])))
            #expect(try JSONParser.parse(json) == .object(JSONObject([("k", .string(text))])), "\(json)")
        }
    }
}
