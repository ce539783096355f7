import Foundation
import Mappings
import MappingsTestSupport
import Testing

/// Random payload shapes, random contexts reading them, random payloads of that shape: map,
/// serialize, map again — the same object, and the reverse reports nothing.
@Suite("reverse mapping, property-based")
struct ReverseMappingPropertyTests {
    /// The shape of a payload: what random payloads and the context's key paths follow.
    indirect enum Shape {
        case scalar(Scalar)
        case scalars(Scalar, count: Int)
        case object([(key: String, shape: Shape)])
        case objects([(key: String, shape: Shape)], count: Int)
    }

    enum Scalar: CaseIterable {
        case string, int, double, bool, decimal, json

        var type: String {
            switch self {
            case .string: "String"
            case .int: "Int"
            case .double: "Double"
            case .bool: "Bool"
            case .decimal: "Decimal"
            case .json: "JSON"
            }
        }
    }

    /// Keys a payload may have, identifiers or not.
    static let keys = ["a", "b", "name", "-1", "+1", "0", "7", "a b", "\u{E9}", "e\u{301}", "k_1", "x-y", "@"]

    struct Generated {
        var text: String
        var shape: Shape
    }

    /// One entry of the context: a property, its type and the key path it reads.
    struct Entry {
        var property: String
        var type: String
        var keyPath: String
        var object: String?
    }

    static func scalarShape(_ random: inout SeededGenerator) -> Scalar {
        Scalar.allCases.randomElement(using: &random)!
    }

    static func members(depth: Int, _ random: inout SeededGenerator) -> [(key: String, shape: Shape)] {
        let count = Int.random(in: 1...4, using: &random)
        var used = Set<String>()
        var result: [(key: String, shape: Shape)] = []
        for _ in 0..<count {
            let key = keys.randomElement(using: &random)!
            // The "@" key and the digit keys cannot be read through a key path: they stay out of paths.
            guard key != "@", used.insert(key).inserted else { continue }
            // A key of digits (or -1) reads an index on an array: it names scalars of objects only.
            let indexLike = Int(key) != nil
            let pick = depth >= 2 || indexLike ? 0 : Int.random(in: 0...5, using: &random)
            let shape: Shape =
                switch pick {
                case 0, 1, 2: .scalar(scalarShape(&random))
                case 3:
                    .scalars(
                        [.string, .int].randomElement(using: &random)!, count: Int.random(in: 2...4, using: &random))
                case 4: .object(members(depth: depth + 1, &random))
                default: .objects(members(depth: depth + 1, &random), count: Int.random(in: 1...3, using: &random))
                }
            result.append((key, shape))
        }
        return result
    }

    /// Entries reading the leaves of `shape` under `prefix`; nested object collections get
    /// their own inline context (and, sometimes, a fan-out entry beside them).
    static func entries(
        _ members: [(key: String, shape: Shape)], prefix: String, models: inout [String], counter: inout Int,
        _ random: inout SeededGenerator
    ) -> [Entry] {
        var result: [Entry] = []
        func property() -> String {
            counter += 1
            return "p\(counter)"
        }
        for (key, shape) in members {
            // A digit key on an object is read as an index on an array; "0" and "7" written back
            // as an array position read back the same.
            let path = prefix.isEmpty ? key : prefix + "." + key
            switch shape {
            case .scalar(let scalar):
                result.append(Entry(property: property(), type: scalar.type, keyPath: path))
            case .scalars(let scalar, let count):
                switch Int.random(in: 0...2, using: &random) {
                case 0: result.append(Entry(property: property(), type: "[\(scalar.type)]", keyPath: path))
                case 1:
                    result.append(Entry(property: property(), type: scalar.type, keyPath: path + ".@first"))
                    result.append(Entry(property: property(), type: scalar.type, keyPath: path + ".@last"))
                default:
                    for index in 0..<count {
                        result.append(Entry(property: property(), type: scalar.type, keyPath: path + ".\(index)"))
                    }
                }
            case .object(let inner):
                result += entries(inner, prefix: path, models: &models, counter: &counter, &random)
            case .objects(let inner, _):
                let model = "M\(models.count)"
                let slot = models.count
                models.append(model)
                var nested: [Entry] = []
                var innerCounter = 0
                let innerEntries = entries(inner, prefix: "", models: &models, counter: &innerCounter, &random)
                    .filter { $0.object == nil && !$0.keyPath.contains(".") }
                nested = innerEntries
                let fields = nested.map(field).joined(separator: ", ")
                let mappings = nested.map(rule).joined(separator: ", ")
                models[slot] = "\"\(model)\": { \(fields) }"
                result.append(
                    Entry(
                        property: property(), type: "[\(model)]", keyPath: path,
                        object: "{ \"@class\": \"\(model)\", \"@mappings\": { \(mappings) } }"))
                if let fan = nested.first(where: { !$0.type.hasPrefix("[") && Int($0.keyPath) == nil }),
                    Bool.random(using: &random)
                {
                    result.append(Entry(property: property(), type: "[\(fan.type)]", keyPath: path + "." + fan.keyPath))
                }
            }
        }
        return result
    }

    /// A model's declaration of the entry's property (JSON may hold null: optional).
    static func field(_ entry: Entry) -> String {
        "\"\(entry.property)\": \"\(entry.type)\(entry.type.hasPrefix("JSON") ? "?" : "")\""
    }

    /// The entry as a context writes it.
    static func rule(_ entry: Entry) -> String {
        let optional = entry.type.hasPrefix("JSON") ? ", \"@optional\": true" : ""
        let object = entry.object.map { ", \"@object\": \($0)" } ?? ""
        return "\"\(entry.property)\": { \"@keyPath\": \(json(entry.keyPath))\(optional)\(object) }"
    }

    static func json(_ text: String) -> String {
        JSONWriter.string(JSONValue.string(text))
    }

    static func value(_ shape: Shape, _ random: inout SeededGenerator) -> JSONValue {
        switch shape {
        case .scalar(let scalar): scalarValue(scalar, &random)
        case .scalars(let scalar, let count): .array((0..<count).map { _ in scalarValue(scalar, &random) })
        case .object(let members): .object(JSONObject(members.map { ($0.key, value($0.shape, &random)) }))
        case .objects(let members, let count):
            .array((0..<count).map { _ in .object(JSONObject(members.map { ($0.key, value($0.shape, &random)) })) })
        }
    }

    static func scalarValue(_ scalar: Scalar, _ random: inout SeededGenerator) -> JSONValue {
        switch scalar {
        case .string:
            .string(
                ["", "x", "héllo", "a\"b\\c\n", "😀", "1"].randomElement(using: &random)!
                    + String(Int.random(in: 0...99, using: &random)))
        case .int: .integer(Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &random))
        case .double: .double(Double(Int.random(in: -100_000...100_000, using: &random)) / 64)
        case .bool: .bool(Bool.random(using: &random))
        case .decimal:
            try! JSONParser.parse(
                "\(Int.random(in: -999_999...999_999, using: &random)).\(Int.random(in: 1...99_999_999_999, using: &random))"
                    + ["1", "10", "100"].randomElement(using: &random)!
            )
        case .json:
            [
                JSONValue.null, .integer(3), .string("s"),
                .array([.integer(1), .object(JSONObject([("k", .bool(true))]))]),
                try! JSONParser.parse("18446744073709551617.50"),
            ].randomElement(using: &random)!
        }
    }

    @Test("seeded: 300 random contexts, 5 payloads each, map → serialize → map is the identity")
    func roundTrips() throws {
        var random = SeededGenerator(seed: 2026)
        var checked = 0
        for round in 0..<300 {
            let shape = Self.members(depth: 0, &random)
            var models: [String] = []
            var counter = 0
            let found = Self.entries(shape, prefix: "", models: &models, counter: &counter, &random)
            guard !found.isEmpty else { continue }
            models.append("\"Root\": { \(found.map(Self.field).joined(separator: ", ")) }")
            let rules = found.map(Self.rule)
            let text = """
                { "@models": { \(models.joined(separator: ", ")) },
                  "$Root": { "@class": "Root", \(rules.joined(separator: ", ")) } }
                """
            let mapper: Mapper
            do {
                mapper = Mapper(catalog: try Catalog.load(["r.mappings"], from: .memory(["r.mappings": text])))
            } catch {
                Issue.record("round \(round): the generated context does not load: \(error)\n\(text)")
                continue
            }
            for _ in 0..<5 {
                let payload = Self.value(.object(shape), &random)
                let first = try mapper.object(from: payload, context: "$Root")
                #expect(
                    first.issues.isEmpty, "round \(round): \(first.issues) for \(JSONWriter.string(payload))\n\(text)")
                let back = try mapper.payload(from: first.value, context: "$Root")
                #expect(back.issues.isEmpty, "round \(round): \(back.issues)\n\(text)")
                let written = JSONWriter.string(back.value)
                let second = try mapper.object(from: try JSONParser.parse(written), context: "$Root")
                #expect(
                    second.value == first.value,
                    "round \(round): \(JSONWriter.string(first.value)) came back as \(JSONWriter.string(second.value)) through \(written)\n\(text)"
                )
                checked += 1
            }
        }
        #expect(checked > 1000)
    }
}
