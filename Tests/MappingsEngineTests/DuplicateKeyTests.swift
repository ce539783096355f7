import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// A key the payload writes twice where the mapping reads is a `duplicate key` error at its
/// path, in every reader; a repeat where nothing reads changes nothing and is not reported.
@Suite("payload keys written twice")
struct DuplicateKeyTests {
    static let catalog = """
        { "@models": {
            "Root": { "name": "String?", "raw": "JSON?", "scores": "[String: Int]?", "inner": "Inner?",
                      "deep": "String?", "items": "[Inner]?", "names": "[String]?", "shape": "(Circle | Square)?",
                      "byName": "Inner?", "pick": "String?" },
            "Inner": { "id": "Int?", "label": "String?" },
            "Circle": { "kind": "String", "r": "Int?" }, "Square": { "kind": "String", "side": "Int?" } },
          "$Circle": { "@class": "Circle", "kind": "kind", "r": { "@keyPath": "r", "@optional": true } },
          "$Square": { "@class": "Square", "kind": "kind", "side": { "@keyPath": "side", "@optional": true } },
          "$Inner": { "@class": "Inner", "id": { "@keyPath": "id", "@optional": true },
                      "label": { "@keyPath": "label", "@optional": true } },
          "$Root": { "@class": "Root",
            "name": { "@keyPath": "name", "@optional": true },
            "raw": { "@keyPath": "raw", "@optional": true },
            "scores": { "@keyPath": "scores", "@optional": true },
            "inner": { "@keyPath": "inner", "@optional": true, "@object": { "@mappings": "$Inner" } },
            "deep": { "@keyPath": "a.b.c", "@optional": true },
            "items": { "@keyPath": "items", "@optional": true, "@object": { "@mappings": "$Inner" } },
            "names": { "@keyPath": "people.name", "@optional": true },
            "byName": { "@keyPath": "byName", "@optional": true },
            "pick": { "@keyPath": ["first", "second"], "@optional": true } },
          "$Shaped": { "@class": "Root", "@inherits": "$Root",
            "shape": { "@keyPath": "shape", "@optional": true, "@object": {
                "@discriminator": "kind", "@cases": { "circle": "$Circle", "square": "$Square" } } } } }
        """

    /// Payloads that repeat a key where the mapping reads, and the path each reports.
    static let repeatedWhereRead: [(payload: String, path: String)] = [
        (#"{"name": "a", "name": "b"}"#, "$.name"),
        (#"{"raw": {"a": 1, "a": 2}}"#, "$.raw.a"),
        (#"{"raw": [{"x": {"a": 1, "a": 2}}]}"#, "$.raw[0].x.a"),
        (#"{"raw": 1, "raw": 2}"#, "$.raw"),
        (#"{"scores": {"x": 1, "x": 2}}"#, "$.scores.x"),
        (#"{"inner": {"id": 1, "id": 2}}"#, "$.inner.id"),
        (#"{"inner": {"id": 1}, "inner": {"id": 2}}"#, "$.inner"),
        (#"{"a": {"b": {"c": "x", "c": "y"}}}"#, "$.a.b.c"),
        (#"{"a": {"b": {"c": "x"}, "b": {"c": "y"}}}"#, "$.a.b"),
        (#"{"a": {"b": {"c": "x"}}, "a": {}}"#, "$.a"),
        (#"{"items": [{"id": 1}, {"label": "x", "label": "y"}]}"#, "$.items[1].label"),
        (#"{"people": [{"name": "a"}, {"name": "b", "name": "c"}]}"#, "$.people[1].name"),
        (#"{"shape": {"kind": "circle", "kind": "square", "side": 2}}"#, "$.shape.kind"),
        (#"{"shape": {"kind": "circle", "r": 1, "r": 2}}"#, "$.shape.r"),
        (#"{"byName": {"label": "a", "label": "b"}}"#, "$.byName.label"),
        (#"{"byName": {"other": 1, "other": 2}}"#, "$.byName.other"),
        (#"{"first": "a", "first": "b"}"#, "$.first"),
        (#"{"second": "a", "second": "b"}"#, "$.second"),
    ]

    /// Payloads that repeat a key no entry reads: mapped as if it were written once.
    static let repeatedWhereNotRead: [String] = [
        #"{"name": "a", "other": 1, "other": 2}"#,
        #"{"inner": {"id": 1, "note": 1, "note": 2}}"#,
        #"{"a": {"z": 1, "z": 2, "b": {"c": "x"}}}"#,
        #"{"people": [{"name": "a", "age": 1, "age": 2}]}"#,
        #"{"shape": {"kind": "circle", "side": 1, "side": 2}}"#,
        #"{"first": "a", "second": "b", "second": "c"}"#,
        #"{"x": {"y": 1, "y": 2}}"#,
    ]

    /// The mapper, and the context for `payload` with its fast plan (unions have none).
    static func setUp(for payload: String = "") throws -> (Mapper, CompiledContext, FastPlan?) {
        let mapper = Mapper(catalog: try load(catalog))
        let context = try mapper.context(payload.contains("shape") ? "$Shaped" : "$Root")
        let plan = try? mapper.fastPlan(for: context).get()
        #expect(plan != nil || payload.contains("shape"), "$Root has a fast plan")
        return (mapper, context, plan)
    }

    @Test(
        "a key written twice where the mapping reads is one error at its path, in every reader",
        arguments: repeatedWhereRead)
    func reported(_ payload: String, _ path: String) throws {
        let (mapper, context, plan) = try Self.setUp(for: payload)
        let bytes = Array(payload.utf8)
        var out: [UInt8] = []
        #expect(plan?.write(bytes, into: &out, omittingNulls: false) != true, "the plan must give the record back")
        let parsed = try JSONValue(parsing: payload)
        let results = [
            try mapper.object(fromJSON: bytes, using: context),
            mapper.object(from: parsed, using: context),
            mapper.explain(parsed, using: context).result,
            mapper.map(parsed, into: mapper.object(from: .object(JSONObject()), using: context).value, using: context),
        ]
        for result in results {
            let repeats = result.issues.filter { $0.kind == .duplicateKey }
            #expect(repeats.map(\.path) == [path], "\(result.issues)")
            #expect(repeats.allSatisfy { $0.severity == .error })
            #expect(result.hasErrors)
        }
        let many = try mapper.objects(fromJSON: Array("[{}, \(payload)]".utf8), using: context)
        #expect(
            many.issues.filter { $0.kind == .duplicateKey }.map(\.path) == ["$[1]" + path.dropFirst()],
            "\(many.issues)")
        let explained = mapper.explain(parsed, using: context).explanations.map(\.description)
        #expect(explained.contains { $0.contains("FAILED at \(path): duplicate key") }, "\(explained)")
    }

    @Test("a key written twice where nothing reads changes nothing", arguments: repeatedWhereNotRead)
    func notRead(_ payload: String) throws {
        let (mapper, context, plan) = try Self.setUp(for: payload)
        let bytes = Array(payload.utf8)
        let once = try mapper.object(fromJSON: bytes, using: context)
        #expect(once.issues.isEmpty, "\(once.issues)")
        var out: [UInt8] = []
        if plan?.write(bytes, into: &out, omittingNulls: false) == true {
            var general: [UInt8] = []
            JSONWriter.write(once.value, into: &general)
            #expect(out == general)
        }
    }

    /// Random objects nested up to four deep, with one key repeated at a random depth along a
    /// read key path: the engine reports exactly that path, and the plan never writes the record.
    @Test("a repeat at every depth of a read path is found")
    func everyDepth() throws {
        let mapper = Mapper(
            catalog: try load(
                """
                { "@models": { "M": { "v": "String?", "j": "JSON?" } },
                  "$M": { "@class": "M", "v": { "@keyPath": "k1.k2.k3.k4", "@optional": true },
                          "j": { "@keyPath": "k1.j", "@optional": true } } }
                """))
        let context = try mapper.context("$M")
        let plan = try mapper.fastPlan(for: context).get()
        var random = SeededGenerator(seed: 0xD0B1_E0)
        for _ in 0..<300 {
            let depth = Int.random(in: 1...4, using: &random)
            let throughJSON = depth >= 2 && Bool.random(using: &random)
            // The object at depth `depth - 1` writes `k<depth>` (or a key inside `j`) twice.
            func object(_ level: Int) -> String {
                let filler = "\"f\(level)\": \(level)"
                if level == 3 {
                    let leaf = "\"k4\": \"x\""
                    return "{"
                        + (depth == 4 && !throughJSON ? [filler, leaf, leaf] : [filler, leaf]).shuffled(using: &random)
                        .joined(separator: ", ") + "}"
                }
                let next = "\"k\(level + 1)\": " + object(level + 1)
                var members = [filler, next]
                if level == 1 { members.append(throughJSON ? #""j": {"q": 1, "q": 2}"# : #""j": {"q": 1}"#) }
                if !throughJSON, level == depth - 1 { members.insert(next, at: 0) }
                return "{" + members.shuffled(using: &random).joined(separator: ", ") + "}"
            }
            let payload =
                throughJSON
                ? "{\"k1\": \(object(1))}"
                : depth == 1 ? "{\"k1\": \(object(1)), \"k1\": {}}" : "{\"k1\": \(object(1))}"
            let path = throughJSON ? "$.k1.j.q" : "$" + (1...depth).map { ".k\($0)" }.joined()
            let result = try mapper.object(fromJSON: Array(payload.utf8), using: context)
            #expect(result.issues.map(\.path) == [path], "\(payload): \(result.issues)")
            var out: [UInt8] = []
            #expect(!plan.write(Array(payload.utf8), into: &out, omittingNulls: false), "\(payload)")
        }
    }

    @Test("objects read back whole (--into, serialize) report every repeat")
    func readBack() throws {
        let (mapper, context, _) = try Self.setUp()
        let existing = mapper.existingObject(
            from: try JSONValue(parsing: #"{"name": "a", "name": "b", "inner": {"id": 1, "note": 1, "note": 2}}"#),
            using: context)
        #expect(existing.issues.map(\.path) == ["$.name", "$.inner.note"])
        #expect(existing.issues.allSatisfy { $0.kind == .duplicateKey })
    }

    @Test("a @tests input that writes a key twice is a load error naming both places")
    func testsInput() {
        #expect(throws: MappingsError.self) {
            try load(
                """
                { "@models": { "M": { "i": "String" } },
                  "$M": { "@class": "M", "i": "i",
                          "@tests": [ { "input": { "i": "a", "i": "b" }, "output": { "i": "b" } } ] } }
                """)
        }
    }
}
