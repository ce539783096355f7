import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON

@Suite("Sets {T} and @object on collections of collections")
struct SetAndNestedTests {
    private static let contexts = #"""
        {
            "@models": {
                "Post": { "tags": "{String}", "scores": "{Int}?", "grid": "[[Cell]]?", "groups": "[String: [Cell]]?",
                          "days": "{Date}?" },
                "Cell": { "v": "Int" }
            },
            "$Post": {
                "@class": "Post",
                "tags": "tags",
                "scores": { "@keyPath": "scores", "@optional": true },
                "days": { "@keyPath": "days", "@optional": true },
                "grid": { "@keyPath": "grid", "@optional": true, "@object": { "@mappings": "$Cell" } },
                "groups": { "@keyPath": "groups", "@optional": true, "@object": { "@mappings": "$Cell" } }
            },
            "$Cell": { "@class": "Cell", "v": "value" },
            "$Loose": { "labels": { "@keyPath": "labels", "@type": "{String}" } }
        }
        """#

    private let mapper: Mapper

    init() throws {
        mapper = Mapper(catalog: try load(Self.contexts))
    }

    private func map(_ json: String, _ context: String = "$Post") throws -> MappingResult {
        try mapper.object(from: try JSONParser.parse(json), context: context)
    }

    @Test("a set keeps each value once, sorted (strings by code points, numbers by value); a repeat is a warning")
    func sets() throws {
        let result = try map(#"{"tags": ["b", "a", "é", "b", "B"], "scores": [10, 2, "3", 2]}"#)
        #expect(
            result.value.jsonText
                == #"{"tags":["B","a","b","é"],"scores":[2,3,10],"grid":null,"groups":null,"days":null}"#)
        #expect(
            result.issues.map(\.description) == [
                #"$.tags[3]: warning: "b" is already in the set (at [0]): kept once (main.mappings:9)"#,
                "$.scores[3]: warning: 2 is already in the set (at [1]): kept once (main.mappings:10)",
            ])
        #expect(!result.hasErrors)
        #expect(try map(#"{"tags": "a"}"#).issues.map(\.message) == [#"expected {String}, found string "a""#])
        #expect(try map(#"{"labels": ["z", "y", "z"]}"#, "$Loose").value.jsonText == #"{"labels":["y","z"]}"#)
    }

    @Test("a set of other values keeps payload order; populating a set takes the union; serialize writes an array")
    func unionAndSerialize() throws {
        let days = try map(#"{"tags": [], "days": ["2024-01-02", "2023-05-06", "2024-01-02T00:00:00Z"]}"#)
        #expect(days.value.jsonText.contains(#""days":["2024-01-02T00:00:00Z","2023-05-06T00:00:00Z"]"#))
        let context = try mapper.context("$Post")
        let existing = try map(#"{"tags": ["m", "a"]}"#).value
        let populated = mapper.map(try JSONParser.parse(#"{"tags": ["z", "a"]}"#), into: existing, using: context)
        #expect(populated.value.jsonText.hasPrefix(#"{"tags":["a","m","z"]"#))
        #expect(populated.issues.isEmpty)
        let back = mapper.payload(from: populated.value, using: context)
        #expect(back.value.jsonText == #"{"tags":["a","m","z"]}"#)
    }

    @Test("[[Model]] and [String: [Model]] build each innermost object with the @object context")
    func nested() throws {
        let result = try map(
            #"{"tags": [], "grid": [[{"value": 1}], [{"value": 2}, {"value": "x"}]], "groups": {"a": [{"value": 5}], "b": 3}}"#
        )
        #expect(
            result.value.jsonText
                == #"{"tags":[],"scores":null,"grid":[[{"v":1}],[{"v":2},{"v":null}]],"groups":{"a":[{"v":5}]},"days":null}"#
        )
        #expect(
            result.issues.map(\.description) == [
                #"$.grid[1][1].value: expected Int, found string "x", which is not a whole number (main.mappings:15)"#,
                #"$.groups.b: expected an array for [Cell] at Post.groups["b"], found number 3 (main.mappings:13)"#,
            ])
        let context = try mapper.context("$Post")
        let back = mapper.payload(from: result.value, using: context)
        #expect(
            back.value.jsonText == #"{"tags":[],"grid":[[{"value":1}],[{"value":2},{}]],"groups":{"a":[{"value":5}]}}"#)
        let again = mapper.map(
            try JSONParser.parse(#"{"grid": [[{"value": 3}]], "groups": {"c": []}}"#), into: result.value,
            using: context)
        #expect(again.value.jsonText.contains(#""grid":[[{"v":1}],[{"v":2},{"v":null}],[{"v":3}]]"#))
        #expect(again.value.jsonText.contains(#""groups":{"a":[{"v":5}],"c":[]}"#))
    }

    @Test(
        "load-time: a set of models or of optionals, @identity and @onElementError on nested collections",
        arguments: [
            (#""Bad": { "cells": "{Cell}" }"#, #"in the type of "cells": a set holds single values"#),
            (#""Bad": { "maybe": "{String?}" }"#, "not String?"),
            (#""Bad": { "open": "{String" }"#, #"this "{" is not closed"#),
        ])
    func setTypes(_ model: String, _ expected: String) {
        let rendered = failure(#"{ "@models": { "Cell": { "v": "Int" }, \#(model) } }"#)
        #expect(rendered.contains(expected), "\(rendered)")
    }

    @Test("@identity and @onElementError refuse collections of collections")
    func nestedPolicies() {
        let rendered = failure(
            #"""
            { "@models": { "G": { "grid": "[[Cell]]" }, "Cell": { "v": "Int" } },
              "$G": { "@class": "G", "grid": { "@keyPath": "g", "@object": { "@class": "Cell" }, "@identity": "v",
                      "@onElementError": "skip" } } }
            """#)
        #expect(
            rendered.contains(
                #"error: "@identity" matches the elements of [Model] or [String: Model], but "grid" is [[Cell]]"#))
        #expect(rendered.contains(#"error: "@onElementError" applies to [T] and [String: T], but "grid" is [[Cell]]"#))
    }

    struct Tagged: MappedModel {
        var tags: Set<String> = []
        static let mapping = TypedModel<Tagged>("Tagged", make: { Tagged() }) { tagged in
            tagged.bind("tags", \.tags)
        }
    }

    @Test("a typed Set<String> is a {String} property, written back sorted")
    func typedSet() throws {
        var definitions = Definitions()
        definitions.register(Tagged.self)
        definitions.context("$Tagged", class: "Tagged") { tagged in tagged.map("tags", from: "labels") }
        let catalog = try Catalog.load([], from: .memory([:]), definitions: definitions)
        #expect(catalog.models["Tagged"]?.properties.first?.type.description == "{String}")
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.typedContext(Tagged.self, "$Tagged")
        let result = mapper.object(
            Tagged.self, from: try JSONParser.parse(#"{"labels": ["q", "b", "q"]}"#), using: context)
        #expect(result.value.tags == ["b", "q"])
        #expect(result.issues.map(\.severity) == [.warning])
        #expect(mapper.payload(from: result.value, using: context).value.jsonText == #"{"labels":["b","q"]}"#)
    }
}
