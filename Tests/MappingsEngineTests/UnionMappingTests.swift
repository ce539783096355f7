import Foundation
import Mappings
import Testing

/// Unions through the Swift API: contexts declared with `ContextBuilder`, typed models with a
/// `MappedUnion` enum, serialize, and a union read back by shape.
@Suite("Unions through the Swift API")
struct UnionMappingTests {
    struct Circle: MappedModel, Equatable {
        var radius = 0.0
        static let mapping = TypedModel<Circle>("Circle", make: { Circle() }) { $0.bind("radius", \.radius) }
    }

    struct Rect: MappedModel, Equatable {
        var w = 0.0
        var h = 0.0
        static let mapping = TypedModel<Rect>("Rect", make: { Rect() }) { rect in
            rect.bind("w", \.w)
            rect.bind("h", \.h)
        }
    }

    enum Shape: MappedUnion, Equatable {
        case circle(Circle)
        case rect(Rect)
        static let mapping = TypedUnion<Shape> { shape in
            shape.member(Shape.circle) { if case .circle(let circle) = $0 { circle } else { nil } }
            shape.member(Shape.rect) { if case .rect(let rect) = $0 { rect } else { nil } }
        }
    }

    struct Drawing: MappedModel {
        var shapes: [Shape] = []
        var main: Shape?
        static let mapping = TypedModel<Drawing>("Drawing", make: { Drawing() }) { drawing in
            drawing.bind("shapes", \.shapes)
            drawing.bind("main", \.main)
        }
    }

    /// The contexts, declared in Swift.
    static var definitions: Definitions {
        var definitions = Definitions()
        definitions.register(Drawing.self)
        definitions.context("$Circle", class: "Circle") { $0.map("radius", from: "r") }
        definitions.context("$Rect", class: "Rect") { rect in
            rect.map("w", from: "size.w")
            rect.map("h", from: "size.h")
        }
        definitions.context("$Drawing", class: "Drawing") { drawing in
            drawing.map(
                "shapes", from: "shapes", object: .cases(discriminator: "type", ["circle": "$Circle", "rect": "$Rect"]))
            drawing.map(
                "main", from: "main", optional: true,
                object: .cases(discriminator: "meta.kind", ["c": "$Circle"], otherwise: "$Rect"))
            drawing.test(
                input: ["shapes": [["type": "circle", "r": 2]]],
                output: ["shapes": [["type": "circle", "radius": 2]], "main": .null])
        }
        return definitions
    }

    static let payload: JSONValue = [
        "shapes": [["type": "circle", "r": 1.5], ["type": "rect", "size": ["w": 2, "h": 3]]],
        "main": ["meta": ["kind": "square"], "size": ["w": 4, "h": 4]],
    ]

    @Test("a typed union: each object becomes the Swift case of its class, and serializes back")
    func typed() throws {
        let catalog = try Catalog.load([], definitions: Self.definitions)
        #expect(
            catalog.models["Drawing"]?.properties.map(\.type.description) == ["[Circle | Rect]", "(Circle | Rect)?"])
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.typedContext(Drawing.self, "$Drawing")
        let result = mapper.object(Drawing.self, from: Self.payload, using: context)
        #expect(result.issues.isEmpty)
        #expect(result.value.shapes == [.circle(Circle(radius: 1.5)), .rect(Rect(w: 2, h: 3))])
        #expect(result.value.main == .rect(Rect(w: 4, h: 4)))

        let back = mapper.payload(from: result.value, using: context)
        #expect(back.issues.isEmpty)
        // The @otherwise case has no discriminator value to write: only its own entries come back.
        #expect(
            back.value.jsonText
                == #"{"shapes":[{"type":"circle","r":1.5},{"type":"rect","size":{"w":2,"h":3}}],"main":{"size":{"w":4,"h":4}}}"#
        )
        let tests = ContextTestRunner.run(catalog)
        #expect(tests.count == 1 && tests.allSatisfy(\.passed))
    }

    @Test("an unknown case is an issue naming the element, the value and the cases")
    func unknownCase() throws {
        let mapper = Mapper(catalog: try Catalog.load([], definitions: Self.definitions))
        let result = mapper.object(
            from: ["shapes": [["type": "rekt"], ["type": 3]]], using: try mapper.context("$Drawing"))
        #expect(result.issues.map(\.kind) == [.unknownCase, .unknownCase])
        #expect(result.issues.map(\.path) == ["$.shapes[0].type", "$.shapes[1].type"])
        #expect(
            result.issues.first?.message
                == #"unknown case "rekt" for Circle | Rect: the cases are "circle", "rect"; did you mean "rect"?"#)
        #expect(result.value.jsonText == #"{"shapes":[null,null],"main":null}"#)
    }

    @Test(
        "a union read back from JSON takes the member its keys fit",
        arguments: [
            (#"{"radius": 1}"#, #"{"radius":1}"#, 0),
            (#"{"w": 1, "h": null}"#, #"{"w":1,"h":null}"#, 0),
            (#"{"side": 1}"#, "null", 1),
        ])
    func byShape(json: String, expected: String, issues: Int) throws {
        let mapper = Mapper(catalog: try Catalog.load([], definitions: Self.definitions))
        let object = try JSONParser.parse(Array(#"{"shapes": [], "main": \#(json)}"#.utf8))
        let read = mapper.existingObject(from: object, using: try mapper.context("$Drawing"))
        #expect(read.issues.count == issues)
        guard case .object(let drawing) = read.value, let main = drawing["main"] else {
            Issue.record("no drawing")
            return
        }
        #expect(main.jsonText == expected)
    }
}

@Suite("Unions and @unknownKeys")
struct UnionUnknownKeysTests {
    @Test("a case's context with @unknownKeys counts the discriminator as read")
    func discriminatorIsRead() throws {
        let catalog = try Catalog.load(
            ["u.mappings"],
            from: .memory([
                "u.mappings": """
                { "@models": { "Circle": { "r": "Double" }, "Rect": { "w": "Double" }, "D": { "all": "[Circle | Rect]" } },
                  "$Circle": { "@class": "Circle", "r": "r", "@unknownKeys": "error" },
                  "$Rect": { "@class": "Rect", "w": "w" },
                  "$D": { "@class": "D", "all": { "@keyPath": "all",
                          "@object": { "@discriminator": "kind.name", "@cases": { "c": "$Circle", "r": "$Rect" } } } } }
                """
            ]))
        let mapper = Mapper(catalog: catalog)
        let result = mapper.object(
            from: ["all": [["kind": ["name": "c"], "r": 1, "x": 2]]], using: try mapper.context("$D"))
        #expect(result.issues.map(\.path) == ["$.all[0].x"])
        #expect(result.issues.map(\.kind) == [.unknownKey])
    }
}

@Suite("Unions and parsing on demand")
struct UnionDemandTests {
    @Test("parsing only what the cases and the discriminator read gives what a full parse gives")
    func onDemand() throws {
        let catalog = try Catalog.load(
            ["u.mappings"],
            from: .memory([
                "u.mappings": """
                { "@models": { "Circle": { "r": "Double" }, "Rect": { "w": "Double" }, "Other": { "k": "String" },
                               "D": { "all": "[Circle | Rect | Other]", "one": "(Circle | Rect)?" } },
                  "$Circle": { "@class": "Circle", "r": "geo.r" },
                  "$Rect": { "@class": "Rect", "w": "w" },
                  "$Other": { "@class": "Other", "k": "meta.kind" },
                  "$D": { "@class": "D",
                    "all": { "@keyPath": "all", "@object": { "@discriminator": "meta.kind",
                             "@cases": { "c": "$Circle", "r": "$Rect" }, "@otherwise": "$Other" } },
                    "one": { "@keyPath": "one", "@optional": true,
                             "@object": { "@discriminator": "t", "@cases": { "c": "$Circle", "r": "$Rect" } } } } }
                """
            ]))
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$D")
        let payload = """
            {"all": [{"meta": {"kind": "c", "x": 1}, "geo": {"r": 2, "z": 3}, "w": 9},
                     {"meta": {"kind": "r"}, "w": 4}, {"meta": {"kind": "q"}}, {"w": 1}],
             "one": {"t": "x"}, "ignored": [1, 2]}
            """
        let full = mapper.object(from: try JSONParser.parse(Array(payload.utf8)), using: context)
        let onDemand = try mapper.object(fromJSON: Array(payload.utf8), using: context)
        #expect(onDemand.value == full.value)
        #expect(onDemand.issues == full.issues)
        #expect(
            full.value.jsonText
                == #"{"all":[{"meta":{"kind":"c"},"r":2},{"meta":{"kind":"r"},"w":4},{"meta":{"kind":"q"},"k":"q"},{"k":null}],"one":null}"#
        )
        // A missing discriminator maps with @otherwise, whose required "meta.kind" is then missing.
        #expect(full.issues.map(\.path) == ["$.all[3].meta", "$.one.t"])
    }
}
