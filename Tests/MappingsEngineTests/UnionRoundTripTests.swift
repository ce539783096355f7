import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// map → serialize → map gives the same output for unions whose members cannot be told apart
/// by their keys: the output carries each object's discriminator, and reading it back (as
/// `serialize` and `--into` do) chooses by it.
@Suite("unions round-trip through their output")
struct UnionRoundTripTests {
    /// Maps `payload`, reads the output back as `serialize` does, writes the payload again and
    /// maps that: the two outputs must be the same text, without an issue on the way.
    static func roundTrip(_ payload: JSONValue, _ mapper: Mapper, _ context: CompiledContext) -> String? {
        let first = mapper.object(from: payload, using: context)
        guard !first.hasErrors else { return nil }
        let output = JSONWriter.string(first.value)
        guard let read = try? JSONParser.parse(output) else { return "the output does not parse: \(output)" }
        let object = mapper.existingObject(from: read, using: context)
        if !object.issues.isEmpty { return "reading back \(output): \(object.issues)" }
        let back = mapper.payload(from: object.value, using: context)
        if back.hasErrors { return "serializing \(output): \(back.issues)" }
        let again = mapper.object(from: ReverseRun.jsonValue(back.value), using: context)
        let second = JSONWriter.string(again.value)
        if again.hasErrors || second != output {
            return
                "payload \(JSONWriter.string(payload))\n first  \(output)\n back   \(JSONWriter.string(back.value))\n second \(second) \(again.issues)"
        }
        return nil
    }

    @Test("GeoJSON geometries, random collections of them: the same features after a round trip")
    func geoJSON() throws {
        let catalog = try Catalog.load([Fixtures.root.appendingPathComponent("Examples/geojson/geojson.mappings").path])
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$Collection")
        var random = SeededGenerator(seed: 0x6E0)
        func number() -> JSONValue { .double(Double(Int.random(in: -18_000...18_000, using: &random)) / 100) }
        func position() -> JSONValue { .array([number(), number()]) }
        func line() -> JSONValue { .array((0..<Int.random(in: 2...4, using: &random)).map { _ in position() }) }
        var clean = 0
        for _ in 0..<200 {
            var features: [JSONValue] = []
            for index in 0..<Int.random(in: 0...6, using: &random) {
                let geometry: JSONValue
                switch Int.random(in: 0..<5, using: &random) {
                case 0: geometry = ["type": "Point", "coordinates": position()]
                case 1: geometry = ["type": "LineString", "coordinates": line()]
                case 2: geometry = ["type": "Polygon", "coordinates": .array([line(), line()])]
                case 3: geometry = ["type": "MultiPoint", "coordinates": line()]
                default: geometry = .null
                }
                var feature = JSONObject([("type", "Feature"), ("id", .string("f\(index)")), ("geometry", geometry)])
                if Bool.random(using: &random) { feature["properties"] = ["name": .string("n\(index)")] }
                features.append(.object(feature))
            }
            let payload: JSONValue = ["type": "FeatureCollection", "features": .array(features)]
            if !mapper.object(from: payload, using: context).hasErrors { clean += 1 }
            let failure = Self.roundTrip(payload, mapper, context)
            #expect(failure == nil, "\(failure ?? "")")
            if failure != nil { break }
        }
    }

    static let sameKeys = """
        { "@models": {
            "A": { "x": "Int?" }, "B": { "x": "Int?" }, "C": { "x": "Int?", "kind": "String?" },
            "Holder": { "one": "(A | B | C)?", "many": "[A | B | C]", "byName": "[String: A | B | C]?",
                        "deep": "(A | B)?", "grid": "[[A | B]]?" } },
          "$A": { "@class": "A", "x": { "@keyPath": "x", "@optional": true } },
          "$B": { "@class": "B", "x": { "@keyPath": "x", "@optional": true } },
          "$C": { "@class": "C", "x": { "@keyPath": "x", "@optional": true }, "kind": { "@keyPath": "kind", "@optional": true } },
          "$Holder": { "@class": "Holder",
            "one": { "@keyPath": "one", "@optional": true,
                     "@object": { "@discriminator": "kind", "@cases": { "a": "$A", "alpha": "$A", "b": "$B", "1": "$B", "true": "$A" },
                                  "@otherwise": "$C" } },
            "many": { "@keyPath": "many",
                      "@object": { "@discriminator": "kind", "@cases": { "a": "$A", "b": "$B", "c": "$C" } } },
            "byName": { "@keyPath": "byName", "@optional": true,
                        "@object": { "@discriminator": "kind", "@cases": { "a": "$A", "b": "$B", "c": "$C" } } },
            "deep": { "@keyPath": "deep", "@optional": true,
                      "@object": { "@discriminator": "meta.tag", "@cases": { "a": "$A", "b": "$B" } } },
            "grid": { "@keyPath": "grid", "@optional": true,
                      "@object": { "@discriminator": "k", "@cases": { "2": "$A", "3": "$B" } } } } }
        """

    /// Members with the same keys, chosen by strings, numbers, booleans, two values of one
    /// case, `@otherwise`, a nested discriminator, in arrays, dictionaries and arrays of arrays.
    @Test("members with equal keys: the same objects after a round trip, whatever the discriminator's kind")
    func equalKeys() throws {
        let mapper = Mapper(catalog: try load(Self.sameKeys))
        let context = try mapper.context("$Holder")
        var random = SeededGenerator(seed: 0x5A3E)
        func x() -> JSONValue {
            Bool.random(using: &random) ? .integer(Int64.random(in: 0...9, using: &random)) : .null
        }
        var clean = 0
        for _ in 0..<300 {
            var holder = JSONObject()
            let kinds: [JSONValue] = ["a", "alpha", "b", .integer(1), .bool(true), "zzz", .integer(7), "1"]
            if Bool.random(using: &random) {
                var one = JSONObject([("x", x())])
                if Int.random(in: 0..<6, using: &random) > 0 { one["kind"] = kinds.randomElement(using: &random)! }
                holder["one"] = .object(one)
            }
            holder["many"] = .array(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in
                    ["kind": ["a", "b", "c"].randomElement(using: &random)!, "x": x()]
                })
            if Bool.random(using: &random) {
                holder["byName"] = .object(
                    JSONObject(
                        (0..<Int.random(in: 0...3, using: &random)).map {
                            ("k\($0)", ["kind": ["a", "b", "c"].randomElement(using: &random)!, "x": x()])
                        }))
            }
            if Bool.random(using: &random) {
                holder["deep"] = ["meta": ["tag": ["a", "b"].randomElement(using: &random)!], "x": x()]
            }
            if Bool.random(using: &random) {
                holder["grid"] = .array(
                    (0..<Int.random(in: 0...3, using: &random)).map { _ in
                        .array(
                            (0..<Int.random(in: 0...2, using: &random)).map { _ in
                                ["k": .integer(Int64.random(in: 2...3, using: &random)), "x": x()]
                            })
                    })
            }
            if !mapper.object(from: .object(holder), using: context).hasErrors { clean += 1 }
            let failure = Self.roundTrip(.object(holder), mapper, context)
            #expect(failure == nil, "\(failure ?? "")")
            if failure != nil { break }
        }
        #expect(clean == 300)
    }

    @Test("the output carries the discriminator as the payload had it; a model's own key wins")
    func tagInOutput() throws {
        let mapper = Mapper(catalog: try load(Self.sameKeys))
        let context = try mapper.context("$Holder")
        func output(_ payload: JSONValue) -> String {
            JSONWriter.string(mapper.object(from: payload, using: context).value)
        }
        // A number stays a number, a second value of one case is kept as written.
        #expect(output(["one": ["kind": 1, "x": 2], "many": []]).hasPrefix(#"{"one":{"kind":1,"x":2},"#))
        #expect(output(["one": ["kind": "alpha"], "many": []]).hasPrefix(#"{"one":{"kind":"alpha","x":null},"#))
        // C has a property "kind": it writes the key itself, once.
        #expect(output(["one": ["kind": "zzz"], "many": []]).hasPrefix(#"{"one":{"x":null,"kind":"zzz"},"#))
        // A missing discriminator (taken by @otherwise) carries none.
        #expect(output(["one": ["x": 1], "many": []]).hasPrefix(#"{"one":{"x":1,"kind":null},"#))
        #expect(
            output(["many": [], "deep": ["meta": ["tag": "b"]]]).contains(#""deep":{"meta":{"tag":"b"},"x":null}"#))
    }
}
