import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON

@Suite("@onElementError, @onError and @null, through the Swift API")
struct PolicyMappingTests {
    private static let contexts = #"""
        {
            "@models": {
                "Order": { "kept": "[Line]", "skipped": "[Line]", "failed": "[Line]", "numbers": "[Int]",
                           "strict": "[Int]", "byCode": "[String: Line]", "count": "Int", "note": "String?",
                           "tags": "[String]?", "counts": "[String: Int]?" },
                "Line": { "sku": "String", "quantity": "Int" }
            },
            "$Order": {
                "@class": "Order",
                "kept": { "@keyPath": "lines", "@optional": true, "@object": { "@mappings": "$Line" } },
                "skipped": { "@keyPath": "lines", "@optional": true, "@object": { "@mappings": "$Line" },
                             "@onElementError": "skip" },
                "failed": { "@keyPath": "lines", "@optional": true, "@object": { "@mappings": "$Line" },
                            "@onElementError": "fail" },
                "numbers": { "@keyPath": "numbers", "@optional": true, "@onElementError": "skip" },
                "strict": { "@keyPath": "numbers", "@optional": true, "@onElementError": "fail" },
                "byCode": { "@keyPath": "byCode", "@optional": true, "@object": { "@mappings": "$Line" },
                            "@onElementError": "skip" },
                "count": { "@keyPath": "count", "@defaultValue": 0, "@onError": "default" },
                "note": { "@keyPath": "note", "@optional": true, "@null": "clear" },
                "tags": { "@keyPath": "tags", "@optional": true, "@null": "clear" },
                "counts": { "@keyPath": "counts", "@optional": true, "@onElementError": "skip" }
            },
            "$Line": { "@class": "Line", "sku": "sku", "quantity": "qty" }
        }
        """#

    private let mapper: Mapper

    init() throws {
        mapper = Mapper(catalog: try load(Self.contexts))
    }

    private func map(_ json: String) throws -> MappingResult {
        try mapper.object(from: try JSONParser.parse(json), context: "$Order")
    }

    private func property(_ result: MappingResult, _ name: String) -> String {
        guard case .object(let object) = result.value, let value = object[name] else { return "?" }
        return JSONWriter.string(value)
    }

    @Test("keep keeps a failing element, skip leaves it out as warnings, fail leaves the property unset")
    func elementErrors() throws {
        let result = try map(#"{"lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": "x"}], "count": 1}"#)
        #expect(property(result, "kept") == #"[{"sku":"a","quantity":1},{"sku":"b","quantity":null}]"#)
        #expect(property(result, "skipped") == #"[{"sku":"a","quantity":1}]"#)
        #expect(property(result, "failed") == "null")
        #expect(
            result.issues.map { "\($0.severity) \($0.path) \($0.property)" } == [
                "error $.lines[1].qty Order.kept[1].quantity",
                "warning $.lines[1].qty Order.skipped[1].quantity",
                "error $.lines[1].qty Order.failed[1].quantity",
            ])
        #expect(result.issues[1].message.hasSuffix("(element skipped, @onElementError: skip)"))
    }

    @Test("a [T] of scalars: skip leaves the failing elements out, fail leaves the property unset")
    func scalars() throws {
        let result = try map(#"{"numbers": [1, "2", "three", 4.5, 5], "count": 1}"#)
        #expect(property(result, "numbers") == "[1,2,5]")
        #expect(property(result, "strict") == "null")
        #expect(
            result.issues.map { "\($0.severity) \($0.path)" } == [
                "warning $.numbers[2]", "warning $.numbers[3]", "error $.numbers[2]", "error $.numbers[3]",
            ])
    }

    @Test("a failing member of a [String: Model] is left out with skip")
    func dictionaryMembers() throws {
        let result = try map(#"{"byCode": {"a": {"sku": "a", "qty": 1}, "b": {"sku": "b"}}, "count": 1}"#)
        #expect(property(result, "byCode") == #"{"a":{"sku":"a","quantity":1}}"#)
        #expect(result.issues.map { "\($0.severity) \($0.path)" } == ["warning $.byCode.b.qty"])
    }

    @Test("a [String: Int] with skip leaves the failing members out")
    func scalarMembers() throws {
        let result = try map(#"{"counts": {"a": 1, "b": "two", "c": "3"}, "count": 1}"#)
        #expect(property(result, "counts") == #"{"a":1,"c":3}"#)
        #expect(
            result.issues.map { "\($0.severity) \($0.path) \($0.property)" } == ["warning $.counts.b Order.counts.b"])
    }

    @Test("@onError default: a wrong-typed value takes the default, as a warning; a missing one too, silently")
    func onError() throws {
        let wrong = try map(#"{"count": "many"}"#)
        #expect(property(wrong, "count") == "0")
        #expect(
            wrong.issues.map(\.description) == [
                #"$.count: warning: expected Int, found string "many", which is not a whole number (main.mappings:19)"#
            ])
        #expect(!wrong.hasErrors)
        #expect(try map("{}").issues.isEmpty)
        #expect(property(try map(#"{"count": "12"}"#), "count") == "12")
    }

    @Test("@onError default after a failing transformer, from ContextBuilder")
    func onErrorTransformer() throws {
        var definitions = Definitions()
        definitions.model("Box", ["size": "Int"])
        definitions.context("$Box", class: "Box") { box in
            box.map(
                "size", from: "size", defaultValue: 1,
                transform: .closure { value, _ in
                    if value == .string("huge") { throw MappingsError.transformerFailed("too big") }
                    return value
                }, onError: "default")
        }
        let catalog = try Catalog.load([], from: .memory([:]), definitions: definitions)
        let (result, explanations) = Mapper(catalog: catalog).explain(
            try JSONParser.parse(#"{"size": "huge"}"#), using: try Mapper(catalog: catalog).context("$Box"))
        #expect(JSONWriter.string(result.value) == #"{"size":1}"#)
        #expect(result.issues.map { "\($0.severity) \($0.kind)" } == ["warning transformer failed"])
        #expect(explanations.first?.description.contains("= default ($.size failed: Closure.") == true)
    }

    @Test("@null clear: an explicit null clears the property of an existing object; a missing key leaves it")
    func nullClears() throws {
        let context = try mapper.context("$Order")
        let existing = mapper.existingObject(
            from: try JSONParser.parse(#"{"count": 3, "note": "keep me", "tags": ["a"]}"#), using: context)
        let cleared = mapper.map(
            try JSONParser.parse(#"{"count": 4, "note": null, "tags": null}"#), into: existing.value, using: context)
        #expect(property(cleared, "note") == "null")
        #expect(property(cleared, "tags") == "null")
        #expect(cleared.issues.isEmpty)
        let kept = mapper.map(try JSONParser.parse(#"{"count": 4}"#), into: existing.value, using: context)
        #expect(property(kept, "note") == #""keep me""#)
        #expect(property(kept, "tags") == #"["a"]"#)
    }
}
