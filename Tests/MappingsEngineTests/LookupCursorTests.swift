import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// Entries look their key up where the previous entry's was found first: a shortcut that must
/// never change which member is read, whatever order the payload's keys come in.
@Suite("key lookups that start where the last one ended")
struct LookupCursorTests {
    static let mappings = """
        { "@models": { "R": { "a": "String", "b": "String", "c": "String?", "d": "Int?" } },
          "$R": { "@class": "R", "a": "a", "b": "b", "c": { "@keyPath": "c", "@optional": true },
                  "d": { "@keyPath": "x.d", "@optional": true } } }
        """

    @Test(
        "any key order gives the same object",
        arguments: [
            #"{"a": "1", "b": "2", "c": "3", "x": {"d": 4}}"#, #"{"x": {"d": 4}, "c": "3", "b": "2", "a": "1"}"#,
            #"{"b": "2", "a": "1", "x": {"d": 4}, "c": "3"}"#,
            #"{"c": "3", "a": "1", "z": 0, "b": "2", "x": {"d": 4}}"#,
        ])
    func anyOrder(_ payload: String) throws {
        let catalog = try load(Self.mappings)
        let context = try #require(catalog.context("$R"))
        let result = try Mapper(catalog: catalog).object(fromJSON: Array(payload.utf8), using: context)
        #expect(JSONWriter.string(result.value) == #"{"a":"1","b":"2","c":"3","d":4}"#)
        #expect(result.issues.isEmpty)
    }

    @Test("a host's object with a repeated key is read at its first member, as a lookup by key reads it")
    func repeatedKeysOfAHostObject() throws {
        let catalog = try load(Self.mappings)
        let context = try #require(catalog.context("$R"))
        // The cursor after "a" (position 0) points at position 1: a second "b" stands there.
        let object = JSONObject([("a", "1"), ("b", "first"), ("b", "second"), ("c", "3")])
        #expect(object["b"] == "first")
        #expect(object.position(of: "b", from: 2) == 1)
        let result = Mapper(catalog: catalog).object(from: .object(object), using: context)
        #expect(JSONWriter.string(result.value) == #"{"a":"1","b":"first","c":"3","d":null}"#)
    }

    @Test("the parser's objects keep the last of a repeated key, with or without the context's demand")
    func repeatedKeysOfAPayload() throws {
        let catalog = try load(Self.mappings)
        let context = try #require(catalog.context("$R"))
        let payload = #"{"a": "1", "b": "x", "c": "3", "b": "2"}"#
        let mapper = Mapper(catalog: catalog)
        let demanded = try mapper.object(fromJSON: Array(payload.utf8), using: context)
        let full = mapper.object(from: try JSONParser.parse(Array(payload.utf8)), using: context)
        #expect(JSONWriter.string(demanded.value) == #"{"a":"1","b":"2","c":"3","d":null}"#)
        #expect(JSONWriter.string(full.value) == JSONWriter.string(demanded.value))
    }
}
