import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON

@Suite("@identity on a collection of a union, with @onElementError, through the Swift API")
struct UnionIdentityMappingTests {
    /// `shapes` syncs by id; `kept` (skip) and `strict` (fail) upsert by key `key` without
    /// syncing; Rect maps its key from `ref`, so identities are read as each case maps them.
    private static let contexts = #"""
        {
            "@models": {
                "Circle": { "key": "String", "radius": "Double?" },
                "Rect": { "width": "Double?", "key": "String?" },
                "Canvas": { "shapes": "[Circle | Rect]", "kept": "[Circle | Rect]", "strict": "[Circle | Rect]",
                            "grid": "[[Circle | Rect]]", "byName": "[String: Circle | Rect]" }
            },
            "$Circle": { "@class": "Circle", "key": "key", "radius": { "@keyPath": "r", "@optional": true } },
            "$Rect": { "@class": "Rect", "key": "ref", "width": { "@keyPath": "w", "@optional": true } },
            "$Canvas": {
                "@class": "Canvas",
                "shapes": { "@keyPath": "shapes", "@optional": true, "@identity": "key", "@clearContent": true,
                    "@object": { "@discriminator": "type", "@cases": { "circle": "$Circle", "rect": "$Rect" } } },
                "kept": { "@keyPath": "kept", "@optional": true, "@identity": "key", "@onElementError": "skip",
                    "@clearContent": true,
                    "@object": { "@discriminator": "type", "@cases": { "circle": "$Circle", "rect": "$Rect" } } },
                "strict": { "@keyPath": "strict", "@optional": true, "@identity": "key", "@onElementError": "fail",
                    "@object": { "@discriminator": "type", "@cases": { "circle": "$Circle", "rect": "$Rect" } } },
                "byName": { "@keyPath": "byName", "@optional": true, "@identity": "@key", "@clearContent": true,
                    "@object": { "@discriminator": "type", "@cases": { "circle": "$Circle", "rect": "$Rect" } } },
                "grid": { "@keyPath": "grid", "@optional": true,
                    "@object": { "@discriminator": "type", "@cases": { "circle": "$Circle", "rect": "$Rect" } } }
            }
        }
        """#

    private static let existing = #"""
        {"shapes": [{"key": "a", "radius": 1}, {"key": "b", "width": 2}, {"key": "c", "radius": 3}],
         "kept": [{"key": "a", "radius": 1}, {"key": "b", "width": 2}],
         "strict": [{"key": "a", "radius": 1}], "grid": []}
        """#

    private let mapper: Mapper

    init() throws {
        mapper = Mapper(catalog: try load(Self.contexts))
    }

    /// Maps `payload` into the canvas `existing` describes, read back by shape as `--into` does.
    private func populate(_ payload: String, into existing: String = Self.existing) throws -> MappingResult {
        try mapper.populate(payload, into: existing, context: "$Canvas")
    }

    private func property(_ result: MappingResult, _ name: String) -> String {
        result.propertyText(name)
    }

    private func messages(_ result: MappingResult) -> [String] {
        result.issues.map { "\($0.path): \($0.severity) \($0.message)" }
    }

    @Test("identities match across cases, each read as its case maps it; a sync removes the rest")
    func syncAcrossCases() throws {
        let result = try populate(
            #"{"shapes": [{"type": "rect", "ref": "b", "w": 5}, {"type": "circle", "key": "d", "r": 4}]}"#)
        #expect(
            property(result, "shapes")
                == #"[{"type":"rect","width":5,"key":"b"},{"type":"circle","key":"d","radius":4}]"#)
        #expect(
            messages(result) == ["$.shapes: info by key: 1 updated (\"b\"), 1 added (\"d\"), 2 removed (\"a\", \"c\")"])
    }

    @Test("an element whose case changed under the same identity is replaced by a new object of the new case")
    func caseChanged() throws {
        let result = try populate(
            #"{"shapes": [{"type": "circle", "key": "c"}, {"type": "rect", "ref": "a", "w": 9}, {"type": "circle", "key": "b"}]}"#
        )
        // "a" was a Circle with a radius: it is a new Rect now, nothing of the Circle kept; "c"
        // stays a Circle, updated in place (its radius kept).
        #expect(
            property(result, "shapes")
                == #"[{"type":"rect","width":9,"key":"a"},{"type":"circle","key":"b","radius":null},{"type":"circle","key":"c","radius":3}]"#
        )
        #expect(messages(result) == ["$.shapes: info by key: 3 updated (\"c\", \"a\", \"b\")"])
    }

    @Test("duplicates of one identity in different cases merge in order, the later case winning")
    func duplicatesAcrossCases() throws {
        let result = try populate(
            #"{"shapes": [{"type": "circle", "key": "x", "r": 1}, {"type": "rect", "ref": "x"}]}"#, into: "{}")
        #expect(property(result, "shapes") == #"[{"type":"rect","width":null,"key":"x"}]"#)
        #expect(
            messages(result) == [
                "$.shapes[1]: warning the elements [0] and [1] have the same key \"x\": merged in order, [1] wins"
            ])
    }

    @Test("skip: an unknown case is left out as a warning, and the element of its identity stays as it was")
    func skipUnknownCase() throws {
        let result = try populate(
            #"{"kept": [{"type": "star", "key": "a"}, {"type": "star", "key": "z"}, {"type": "rect", "ref": "e"}]}"#)
        #expect(property(result, "kept") == #"[{"key":"a","radius":1},{"type":"rect","width":null,"key":"e"}]"#)
        #expect(
            messages(result) == [
                "$.kept[0].type: warning unknown case \"star\" for Circle | Rect: the cases are \"circle\", \"rect\" (element skipped, @onElementError: skip)",
                "$.kept[1].type: warning unknown case \"star\" for Circle | Rect: the cases are \"circle\", \"rect\" (element skipped, @onElementError: skip)",
                "$.kept: info by key: 1 added (\"e\"), 1 removed (\"b\")",
            ])
    }

    @Test("fail: an unknown case fails the whole property, which is left as it was")
    func failUnknownCase() throws {
        let result = try populate(#"{"strict": [{"type": "rect", "ref": "a", "w": 1}, {"type": "star", "key": "q"}]}"#)
        #expect(property(result, "strict") == #"[{"key":"a","radius":1}]"#)
        #expect(result.issues.map(\.kind) == [.unknownCase])
        #expect(result.issues.allSatisfy { $0.severity == .error })
    }

    @Test("keep: an unknown case is an error and leaves the element of its identity as it was")
    func keepUnknownCase() throws {
        let result = try populate(#"{"shapes": [{"type": "star", "key": "a"}, {"type": "circle", "key": "b"}]}"#)
        #expect(property(result, "shapes") == #"[{"key":"a","radius":1},{"type":"circle","key":"b","radius":null}]"#)
        #expect(result.issues.map(\.kind) == [.unknownCase, .collectionChanges])
        #expect(messages(result).last == "$.shapes: info by key: 1 updated (\"b\"), 1 removed (\"c\")")
    }

    @Test("a dictionary of a union keyed by @key: a changed case replaces the entry, an unknown one leaves it")
    func dictionary() throws {
        let result = try populate(
            #"{"byName": {"a": {"type": "star"}, "b": {"type": "circle", "key": "b"}, "c": {"type": "rect", "ref": "c"}}}"#,
            into:
                #"{"byName": {"a": {"key": "a", "radius": 1}, "b": {"key": "b", "width": 2}, "z": {"key": "z", "radius": 0}}}"#
        )
        #expect(
            property(result, "byName")
                == #"{"a":{"key":"a","radius":1},"b":{"type":"circle","key":"b","radius":null},"c":{"type":"rect","width":null,"key":"c"}}"#
        )
        #expect(result.issues.map(\.kind) == [.unknownCase, .collectionChanges])
        #expect(messages(result).last == #"$.byName: info by key: 1 updated ("b"), 1 added ("c"), 1 removed ("z")"#)
    }

    @Test("a nested collection of a union chooses each object's member at the bottom")
    func nested() throws {
        let result = try populate(
            #"{"grid": [[{"type": "rect", "ref": "r", "w": 1}], [], [{"type": "circle", "key": "c"}, {"type": "no"}]]}"#,
            into: "{}")
        #expect(
            property(result, "grid")
                == #"[[{"type":"rect","width":1,"key":"r"}],[],[{"type":"circle","key":"c","radius":null},null]]"#)
        #expect(
            messages(result) == [
                "$.grid[2][1].type: error unknown case \"no\" for Circle | Rect: the cases are \"circle\", \"rect\""
            ])
    }

    struct Dot: MappedModel, Equatable {
        var id = 0
        var size = 0.0
        static let mapping = TypedModel<Dot>("Dot", make: { Dot() }) { dot in
            dot.bind("id", \.id)
            dot.bind("size", \.size)
        }
    }

    struct Line: MappedModel, Equatable {
        var id = 0
        var length = 0.0
        static let mapping = TypedModel<Line>("Line", make: { Line() }) { line in
            line.bind("id", \.id)
            line.bind("length", \.length)
        }
    }

    enum Mark: MappedUnion, Equatable {
        case dot(Dot)
        case line(Line)
        static let mapping = TypedUnion<Mark> { mark in
            mark.member(Mark.dot) { if case .dot(let dot) = $0 { dot } else { nil } }
            mark.member(Mark.line) { if case .line(let line) = $0 { line } else { nil } }
        }
    }

    struct Sketch: MappedModel {
        var marks: [Mark] = []
        static let mapping = TypedModel<Sketch>("Sketch", make: { Sketch() }) { $0.bind("marks", \.marks) }
    }

    @Test("a typed [Mark] of a MappedUnion syncs by id across its cases, declared with ContextBuilder")
    func typedUnion() throws {
        var definitions = Definitions()
        definitions.register(Sketch.self)
        definitions.context("$Dot", class: "Dot") { dot in
            dot.map("id", from: "id")
            dot.map("size", from: "size", optional: true)
        }
        definitions.context("$Line", class: "Line") { line in
            line.map("id", from: "id")
            line.map("length", from: "length", optional: true)
        }
        definitions.context("$Sketch", class: "Sketch") { sketch in
            sketch.map(
                "marks", from: "marks", object: .cases(discriminator: "kind", ["dot": "$Dot", "line": "$Line"]),
                clearContent: true, identity: .properties("id"), onElementError: "skip")
        }
        let mapper = Mapper(catalog: try Catalog.load([], from: .memory([:]), definitions: definitions))
        let context = try mapper.typedContext(Sketch.self, "$Sketch")
        var sketch = Sketch(marks: [
            .dot(Dot(id: 1, size: 2)), .line(Line(id: 2, length: 5)), .dot(Dot(id: 3, size: 1)),
        ])
        let issues = mapper.map(
            try JSONParser.parse(
                #"{"marks": [{"kind": "line", "id": 1, "length": 4}, {"kind": "line", "id": 2}, {"kind": "arc", "id": 3}]}"#
            ), into: &sketch, using: context)
        #expect(
            sketch.marks == [.line(Line(id: 1, length: 4)), .line(Line(id: 2, length: 5)), .dot(Dot(id: 3, size: 1))])
        #expect(issues.map(\.kind) == [.unknownCase, .collectionChanges])
        #expect(issues.last?.message == "by id: 2 updated (1, 2)")
    }
}
