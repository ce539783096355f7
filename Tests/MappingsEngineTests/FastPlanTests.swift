import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// A fast plan must write exactly what the general engine writes, or leave the record to it:
/// byte for byte, with and without `--omit-nulls`, on the benchmark data, on mutated records
/// and on random payloads over every type and shape a plan covers. A record the plan writes
/// is one the general engine maps without any issue; every other record (invalid JSON
/// included) is the general engine's, which reports its issues itself.
@Suite("fast plans and the general engine")
struct FastPlanTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// What comparing one record found.
    struct Tally {
        var fast = 0
        var general = 0
    }

    /// Maps `bytes` both ways and checks they agree; counts which way the plan took.
    static func compare(
        _ bytes: [UInt8], _ context: CompiledContext, _ plan: FastPlan, _ mapper: Mapper, _ tally: inout Tally,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        for omittingNulls in [false, true] {
            var fast: [UInt8] = [UInt8(ascii: "<")]  // what a caller had written before stays
            let memo = plan.callsTransformers ? TransformerMemo() : nil
            let written = plan.write(bytes, into: &fast, omittingNulls: omittingNulls, memo: memo)
            let record = String(decoding: bytes, as: UTF8.self)
            guard written else {
                #expect(
                    fast == [UInt8(ascii: "<")], "a refused record left output: \(record)",
                    sourceLocation: sourceLocation)
                if !omittingNulls { tally.general += 1 }
                continue
            }
            if !omittingNulls { tally.fast += 1 }
            do {
                let result = try mapper.object(fromJSON: bytes, using: context)
                var general: [UInt8] = [UInt8(ascii: "<")]
                JSONWriter.write(result.value, into: &general, omittingNulls: omittingNulls)
                #expect(
                    result.issues.isEmpty,
                    "the plan wrote a record the general engine reports: \(record)\n\(result.issues)",
                    sourceLocation: sourceLocation)
                #expect(
                    String(decoding: fast, as: UTF8.self) == String(decoding: general, as: UTF8.self),
                    "\(context.identifier ?? "?") omitting nulls: \(omittingNulls), record: \(record)",
                    sourceLocation: sourceLocation)
            } catch {
                Issue.record(
                    "the plan wrote invalid JSON the parser refuses (\(error)): \(record)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    static func benchmarkCatalog() throws -> Catalog { try BenchmarkPlans.catalog() }

    /// A benchmark context, its mapper and its plan.
    static func benchmarkPlan(_ identifier: String) throws -> (Mapper, CompiledContext, FastPlan) {
        try BenchmarkPlans.plan(identifier)
    }

    /// Records of one benchmark shape, from the benchmarks' own seeded generator.
    static func records(shape: String, seed: Int = 11) throws -> [[UInt8]] {
        try BenchmarkPlans.records(shape: shape, seed: seed)
    }

    static let shapes: [(shape: String, context: String)] = [
        ("tweet", "$BenchTweet"), ("small", "$SmallTweet"), ("wide", "$WideRecord"), ("large", "$LargeTweet"),
        // With a transformer (an identity here: the Lua scripts are the CLI tests').
        ("tweet", "$BenchTweetWithClient"), ("small", "$SmallTweetWithHandle"),
        // With two lookups in tables (B12): a key with escapes, a key no row has.
        ("real", "$RealStatusEnriched"),
    ]

    @Test("every benchmark record goes through the plan, with the general engine's bytes", arguments: shapes)
    func benchmarkRecords(_ shape: String, _ identifier: String) throws {
        let (mapper, context, plan) = try Self.benchmarkPlan(identifier)
        var tally = Tally()
        let records = try Self.records(shape: shape)
        #expect(records.count > 40)
        for record in records { Self.compare(record, context, plan, mapper, &tally) }
        #expect(tally.general == 0, "\(tally.general) of \(records.count) benchmark records left the plan")
    }

    @Test("mutated benchmark records: the same bytes, or the general engine", arguments: shapes)
    func mutatedRecords(_ shape: String, _ identifier: String) throws {
        let (mapper, context, plan) = try Self.benchmarkPlan(identifier)
        var tally = Tally()
        var random = SeededGenerator(seed: 0x5EED_0019)
        for record in try Self.records(shape: shape, seed: 12).prefix(150) {
            for _ in 0..<12 {
                Self.compare(RecordMutation.mutate(record, using: &random), context, plan, mapper, &tally)
            }
        }
        // Both ways were taken: the mutations keep some records clean and break others.
        #expect(tally.fast > 100)
        #expect(tally.general > 100)
    }

    @Test(
        "escape-heavy records (letters and non-ASCII written as \\u escapes): the same bytes, or the general engine",
        arguments: shapes)
    func escapedRecords(_ shape: String, _ identifier: String) throws {
        let (mapper, context, plan) = try Self.benchmarkPlan(identifier)
        var tally = Tally()
        var random = SeededGenerator(seed: 0xE5CA_0028)
        for record in try Self.records(shape: shape, seed: 13).prefix(120) {
            for _ in 0..<3 {
                Self.compare(RecordMutation.escape(record, using: &random), context, plan, mapper, &tally)
            }
        }
        // Records whose keys came out unescaped stay on the plan; the others are given back.
        #expect(tally.fast > 20)
    }

    static let typed = """
        { "@models": {
            "Inner": { "name": "String", "rank": "Int?", "tags": "[String]?", "at": "Date?" },
            "Outer": { "id": "Int", "label": "String?", "price": "Decimal?", "ratio": "Double?", "on": "Bool?",
                       "day": "Date?", "link": "URL?", "key": "UUID?", "kind": "Kind?", "raw": "JSON?",
                       "numbers": "[Int]?", "words": "[String]?", "inner": "Inner?", "items": "[Inner]?",
                       "fanned": "[String]?", "deep": "[Int]?", "count": "Int?", "flag": "Bool?",
                       "fallback": "String?", "unset": "String?", "stamp": "Date?", "decimals": "[Decimal]?",
                       "state": "String?", "title": "String?", "scores": "[String: Int]?", "codes": "{String}?",
                       "level": "Kind?", "byName": "Inner?", "grid": "[[Int]]?", "lookup": "[String: Inner]?" },
            "Kind": ["a", "b", "c"] },
          "$Inner": { "@class": "Inner", "name": "name", "rank": { "@keyPath": "rank", "@optional": true },
                      "tags": { "@keyPath": "tags", "@optional": true }, "at": { "@keyPath": "at", "@optional": true } },
          "$Outer": { "@class": "Outer", "id": "id",
                      "label": { "@keyPath": "label", "@optional": true },
                      "price": { "@keyPath": "price", "@optional": true },
                      "ratio": { "@keyPath": "ratio", "@optional": true },
                      "on": { "@keyPath": "on", "@defaultValue": true },
                      "day": { "@keyPath": "day", "@optional": true, "@dateFormat": "yyyy-MM-dd" },
                      "link": { "@keyPath": "link", "@optional": true },
                      "key": { "@keyPath": "key", "@optional": true },
                      "kind": { "@keyPath": "kind", "@optional": true },
                      "raw": { "@keyPath": "raw", "@optional": true },
                      "numbers": { "@keyPath": "numbers", "@optional": true },
                      "words": { "@keyPath": "meta.words", "@optional": true },
                      "inner": { "@keyPath": "inner", "@optional": true, "@object": { "@mappings": "$Inner" } },
                      "items": { "@keyPath": "items", "@optional": true, "@object": { "@mappings": "$Inner" } },
                      "fanned": { "@keyPath": "items.name", "@optional": true },
                      "deep": { "@keyPath": "meta.rows.cells.n", "@optional": true },
                      "count": { "@keyPath": "meta.count", "@defaultValue": 7 },
                      "flag": { "@keyPath": "flag", "@optional": true },
                      "fallback": { "@keyPath": "label2", "@defaultValue": "none" },
                      "stamp": { "@keyPath": "stamp", "@optional": true, "@dateFormat": "@unixMilliseconds" },
                      "decimals": { "@keyPath": "decimals", "@optional": true },
                      "state": { "@keyPath": "state", "@optional": true,
                                 "@valueMap": { "A": "active", "S": "suspended", "1": "one", "true": "yes", "N": 7 } },
                      "title": { "@keyPath": ["title", "meta.title", "label"], "@optional": true },
                      "scores": { "@keyPath": "scores", "@optional": true },
                      "codes": { "@keyPath": "codes", "@optional": true },
                      "level": { "@keyPath": "level", "@optional": true, "@valueMap": { "1": "a", "2": "b" } },
                      "byName": { "@keyPath": "byName", "@optional": true },
                      "grid": { "@keyPath": "grid", "@optional": true },
                      "lookup": { "@keyPath": "lookup", "@optional": true } }
        }
        """

    @Test("random payloads over every type a plan writes: the same bytes, or the general engine")
    func randomPayloads() throws {
        let catalog = try load(Self.typed)
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$Outer")
        let plan = try mapper.fastPlan(for: context).get()
        var tally = Tally()
        var random = SeededGenerator(seed: 0xFA57_9A7E)
        for _ in 0..<14_000 {
            let payload = RandomPayload.outer(using: &random)
            Self.compare(Array(payload.utf8), context, plan, mapper, &tally)
        }
        // Year 0 is refused by both (years 1 to 9999), so fewer records are clean than random.
        #expect(tally.fast > 40)
        #expect(tally.general > 400)
    }

    /// Transformers for `transformed`: answers of every kind, failures and nulls, and a count
    /// of calls (the plan and the general engine together call each once per record).
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        func take() -> Int {
            lock.withLock {
                defer { count = 0 }; return count
            }
        }
    }

    static let calls = Calls()

    static let transformers: TransformerRegistry = {
        var registry = TransformerRegistry()
        registry.register(className: "T", selector: "echo") { value, _ in
            calls.add()
            switch value {
            case .string("fail"): throw TransformFailure()
            case .string("none"): return .null
            case .string("number"): return .integer(42)
            case .string("list"): return .array([.string("a"), .integer(1)])
            default: return value
            }
        }
        return registry
    }()

    struct TransformFailure: Error {}

    @Test("transformers: the same bytes; each called once per record, also when the general engine takes over")
    func transformed() throws {
        let catalog = try Catalog.load(
            ["main.mappings"],
            from: .memory([
                "main.mappings": """
                { "@models": { "M": { "a": "String?", "b": "Int", "c": "JSON?", "d": "String?", "e": "JSON?" } },
                  "$M": { "@class": "M",
                          "a": { "@keyPath": "a", "@optional": true, "@transformClass": "T", "@transformSelector": "echo" },
                          "b": "b",
                          "c": { "@keyPath": "c", "@optional": true, "@transformClass": "T", "@transformSelector": "echo",
                                 "@defaultValue": "dflt" },
                          "d": { "@keyPath": "list.name", "@optional": true, "@transformClass": "T",
                                 "@transformSelector": "echo", "@valueMap": { "x": "ex" } },
                          "e": { "@keyPath": "a", "@optional": true, "@transformClass": "T", "@transformSelector": "echo" } } }
                """
            ]), transformers: Self.transformers)
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$M")
        let plan = try mapper.fastPlan(for: context).get()
        #expect(plan.callsTransformers)
        var random = SeededGenerator(seed: 0x7A_0019)
        var tally = Tally()
        for _ in 0..<3000 {
            let values = [#""x""#, #""fail""#, #""none""#, #""number""#, #""list""#, "1", "null", "[1]", #"{"k":1}"#]
            var members: [String] = []
            for key in ["a", "b", "c"] where Int.random(in: 0..<4, using: &random) > 0 {
                members.append("\"\(key)\":\(RandomPayload.pick(values, &random))")
            }
            if Bool.random(using: &random) {
                members.append(#""list":[{"name":"x"},{"name":"number"},{}]"#)
            }
            let record = Array(("{" + members.joined(separator: ",") + "}").utf8)
            Self.compare(record, context, plan, mapper, &tally)
            // One record as the stream maps it: the plan, then the general engine with its memo.
            _ = Self.calls.take()
            let memo = TransformerMemo()
            var out: [UInt8] = []
            let present = members.filter { !$0.hasPrefix("\"b\"") && !$0.hasSuffix(":null") }.count
            var again: MappingResult?
            if !plan.write(record, into: &out, omittingNulls: false, memo: memo) {
                again = try mapper.object(fromJSON: record, using: context, memo: memo)
            }
            let calls = Self.calls.take()
            let alone = try mapper.object(fromJSON: record, using: context)
            // The plan and the general engine together call as often as the general engine alone.
            #expect(calls == Self.calls.take(), "\(String(decoding: record, as: UTF8.self))")
            #expect(calls <= present + 1)
            if let again {
                #expect(JSONWriter.string(again.value) == JSONWriter.string(alone.value))
                #expect(again.issues.map(\.description) == alone.issues.map(\.description))
            }
        }
        #expect(tally.fast > 50)
        #expect(tally.general > 100)
    }

    @Test("URLs: copied only where Foundation reads them and gives them back unchanged")
    func urls() throws {
        let catalog = try load(#"{ "@models": { "L": { "u": "URL" } }, "$L": { "@class": "L", "u": "u" } }"#)
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$L")
        let plan = try mapper.fastPlan(for: context).get()
        var tally = Tally()
        var random = SeededGenerator(seed: 0x0052_4C5A)
        let characters = Array("abcxyzABZ019-._~!$&'()*+,;=:@/?#%[]{}|^` <>é")
        for _ in 0..<20_000 {
            var text = RandomPayload.pick(["https://", "http://", "https:/", "http:"], &random)
            for _ in 0..<Int.random(in: 0...14, using: &random) {
                text.append(RandomPayload.pick(characters, &random))
                if Int.random(in: 0..<8, using: &random) == 0 {
                    text += RandomPayload.pick(["%2F", "%e9", "%G1"], &random)
                }
            }
            let payload = "{\"u\":\"" + text.replacingOccurrences(of: "\\", with: "\\\\") + "\"}"
            Self.compare(Array(payload.utf8), context, plan, mapper, &tally)
        }
        #expect(tally.fast > 1000)
        #expect(tally.general > 1000)
    }

    @Test("the demand-parsing payloads and the twitter examples: the same bytes, or the general engine")
    func examplePayloads() throws {
        let catalog = try load(DemandParsingTests.mappings)
        let mapper = Mapper(catalog: catalog)
        var tally = Tally()
        for identifier in catalog.identifiers {
            let context = try mapper.context(identifier)
            guard case .success(let plan) = mapper.fastPlan(for: context) else { continue }
            for payload in DemandParsingTests.payloads {
                Self.compare(Array(payload.utf8), context, plan, mapper, &tally)
            }
        }
        var registry = TransformerRegistry()
        for selector in [
            "coordinate2DFromDictionary", "dictionaryFromCoordinate2D", "coordinate2DFromFloatArray",
            "floatArrayFromCoordinate2D",
        ] {
            registry.register(className: "MyTransformers", selector: selector) { value, _ in value }
        }
        let twitter = try Catalog.load(
            [Self.repository.appendingPathComponent("Examples/twitter/variants.mappings").path], transformers: registry)
        let examples = try FileManager.default.contentsOfDirectory(
            atPath: Self.repository.appendingPathComponent("Examples/twitter").path
        ).filter { $0.hasSuffix(".json") }
        let twitterMapper = Mapper(catalog: twitter)
        for identifier in twitter.identifiers {
            let context = try twitterMapper.context(identifier)
            guard case .success(let plan) = twitterMapper.fastPlan(for: context) else { continue }
            for file in examples {
                let bytes = try [UInt8](
                    Data(contentsOf: Self.repository.appendingPathComponent("Examples/twitter/\(file)")))
                Self.compare(bytes, context, plan, twitterMapper, &tally)
            }
        }
        // The language examples: every context that has a plan, over every example payload.
        for directory in ["Examples/language", "Examples/timeline", "Examples/accounts"] {
            let folder = Self.repository.appendingPathComponent(directory)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            let payloads = try names.filter { $0.hasSuffix(".json") }.map {
                try [UInt8](Data(contentsOf: folder.appendingPathComponent($0)))
            }
            for file in names where file.hasSuffix(".mappings") && !file.hasPrefix("broken") {
                guard let catalog = try? Catalog.load([folder.appendingPathComponent(file).path]) else { continue }
                let mapper = Mapper(catalog: catalog)
                for identifier in catalog.identifiers {
                    let context = try mapper.context(identifier)
                    guard case .success(let plan) = mapper.fastPlan(for: context) else { continue }
                    for payload in payloads { Self.compare(payload, context, plan, mapper, &tally) }
                }
            }
        }
        #expect(tally.fast > 5)
    }

    @Test("numbers a scan skips are checked as the parser checks the numbers it reads")
    func skippedNumbers() throws {
        var random = SeededGenerator(seed: 0x4E_554D)
        let alphabet = Array("0123456789-+.eE")
        let wanted = JSONDemand.members([JSONDemand.Member(key: "a", demand: .everything)])
        var accepted = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...24, using: &random)
            let text = String((0..<length).map { _ in RandomPayload.pick(alphabet, &random) })
            let read = Result { () throws(JSONParser.Failure) in
                try JSONParser.parse(Array(#"{"a":1,"b":\#(text)}"#.utf8))
            }
            let skipped = Result { () throws(JSONParser.Failure) in
                try JSONParser.parse(Array(#"{"a":1,"b":\#(text)}"#.utf8), demand: wanted)
            }
            switch (read, skipped) {
            case (.success, .success): accepted += 1
            case (.failure(let one), .failure(let other)):
                #expect(one == other, "\(text)")
            default: Issue.record("\(text): read \(read), skipped \(skipped)")
            }
        }
        #expect(accepted > 500)
    }

    @Test("what a plan does not cover is said, entry by entry")
    func refusals() throws {
        let catalog = try load(
            """
            { "@models": { "A": { "x": "String", "y": "Int", "z": "[String: A]" } },
              "$A": { "@class": "A", "x": { "@keyPath": "x", "@transformClass": "T", "@transformSelector": "f:" },
                      "y": "list.@first", "z": "z" },
              "$Plain": { "x": "x" } }
            """)
        let mapper = Mapper(catalog: catalog)
        guard case .failure(let refusal) = mapper.fastPlan(for: try mapper.context("$A")) else {
            Issue.record("$A has a plan")
            return
        }
        #expect(refusal.reasons == ["$A.y: the key path list.@first uses an index, @first, @last or @count"])
        let strict = try load(
            """
            { "@models": { "O": { "i": "I" }, "I": { "x": "String" } },
              "$I": { "@class": "I", "@unknownKeys": "warn", "x": "x" },
              "$O": { "@class": "O", "i": { "@keyPath": "i", "@object": { "@mappings": "$I" } } } }
            """)
        let strictMapper = Mapper(catalog: strict)
        for (identifier, reason) in [
            ("$I", #""@unknownKeys" checks every key of the payload"#),
            ("$O", #"a nested context checks every key of its objects ("@unknownKeys")"#),
        ] {
            guard case .failure(let refused) = strictMapper.fastPlan(for: try strictMapper.context(identifier)) else {
                Issue.record("\(identifier) has a plan")
                continue
            }
            #expect(refused.reasons == [reason])
        }
        guard case .failure(let plain) = mapper.fastPlan(for: try mapper.context("$Plain")) else {
            Issue.record("$Plain has a plan")
            return
        }
        #expect(plain.reasons == ["$Plain builds a JSON object (no @class)"])
    }
}

/// Small, seeded edits of a valid record: what real payloads get wrong, and what JSON allows
/// that a plan must read exactly as the parser does.
enum RecordMutation {
    /// The record with characters of its strings written as `\\u` escapes, upper- or
    /// lowercase hex, non-ASCII ones as UTF-16 (surrogate pairs past U+FFFF): the same JSON
    /// value, spelled otherwise. Two values in three are escaped so; in one record in four, one
    /// key in ten (a key written with escapes sends the record to the general engine).
    static func escape(_ record: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        guard let text = String(bytes: record, encoding: .utf8) else { return record }
        var out = ""
        var inString = false
        var escapesThis = false
        var pendingBackslash = false
        var hexDigitsLeft = 0
        // The last character outside strings that is no space: a string after `:` or `[` is a value.
        var before: Unicode.Scalar = " "
        let escapesKeys = Int.random(in: 0..<4, using: &random) == 0
        for character in text.unicodeScalars {
            if !inString {
                out.unicodeScalars.append(character)
                if character == "\"" {
                    inString = true
                    let isValue = before == ":" || before == "["
                    escapesThis =
                        isValue
                        ? Int.random(in: 0..<3, using: &random) > 0
                        : escapesKeys && Int.random(in: 0..<10, using: &random) == 0
                } else if character != " " {
                    before = character
                }
                continue
            }
            // An escape already there is copied as it is: `\\x`, or `\\u` and its four digits.
            if pendingBackslash {
                pendingBackslash = false
                if character == "u" { hexDigitsLeft = 4 }
                out.unicodeScalars.append(character)
                continue
            }
            if hexDigitsLeft > 0 {
                hexDigitsLeft -= 1
                out.unicodeScalars.append(character)
                continue
            }
            if character == "\\" {
                pendingBackslash = true
                out.unicodeScalars.append(character)
                continue
            }
            if character == "\"" {
                inString = false
                before = "\""
                out.unicodeScalars.append(character)
                continue
            }
            let escapes =
                escapesThis && (character.value >= 0x80 || Int.random(in: 0..<4, using: &random) == 0)
            guard escapes else {
                out.unicodeScalars.append(character)
                continue
            }
            let upper = Bool.random(using: &random)
            for unit in String(character).utf16 {
                let hex = String(unit, radix: 16)
                let padded = String(repeating: "0", count: 4 - hex.count) + (upper ? hex.uppercased() : hex)
                out += "\\u" + padded
            }
        }
        return Array(out.utf8)
    }

    static func mutate(_ record: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var text = String(decoding: record, as: UTF8.self)
        let edits: [(inout String, inout SeededGenerator) -> Void] = [
            { text, random in replaceValue(in: &text, with: "null", using: &random) },
            { text, random in replaceValue(in: &text, with: "\"12\"", using: &random) },
            { text, random in replaceValue(in: &text, with: "-0", using: &random) },
            { text, random in replaceValue(in: &text, with: "1e3", using: &random) },
            { text, random in replaceValue(in: &text, with: "12.50", using: &random) },
            { text, random in replaceValue(in: &text, with: "123456789012345678901", using: &random) },
            { text, random in replaceValue(in: &text, with: "true", using: &random) },
            { text, random in replaceValue(in: &text, with: "{\"a\":[1,{}]}", using: &random) },
            { text, random in replaceValue(in: &text, with: "[]", using: &random) },
            { text, random in replaceValue(in: &text, with: "\"a\\\"b\\u00e9\\n\"", using: &random) },
            { text, random in replaceValue(in: &text, with: "\"2020-01-02T03:04:05.678+01:00\"", using: &random) },
            { text, _ in text = text.replacingOccurrences(of: "\"id", with: "\"\\u0069d") },
            { text, random in dropKey(in: &text, using: &random) },
            { text, random in duplicateKey(in: &text, using: &random) },
            { text, _ in text = " \t" + text + " \n" },
            { text, _ in text = "[" + text + "]" },
            { text, random in
                let cut = text.index(text.startIndex, offsetBy: Int.random(in: 1..<max(2, text.count), using: &random))
                text = String(text[..<cut])
            },
            { text, random in replaceValue(in: &text, with: "\"\u{7}\"", using: &random) },
        ]
        let count = Int.random(in: 1...2, using: &random)
        for _ in 0..<count { edits[Int.random(in: 0..<edits.count, using: &random)](&text, &random) }
        if Int.random(in: 0..<40, using: &random) == 0 { return Array(text.utf8) + [0xFF] }
        return Array(text.utf8)
    }

    /// The places where a member's value starts (after `":`) in the record's text.
    private static func valueStarts(in text: String) -> [String.Index] {
        var starts: [String.Index] = []
        var index = text.startIndex
        while let range = text.range(of: "\":", range: index..<text.endIndex) {
            starts.append(range.upperBound)
            index = range.upperBound
        }
        return starts
    }

    /// The end of the scalar starting at `start` (strings, numbers, literals); `nil` for a container.
    private static func scalarEnd(in text: String, from start: String.Index) -> String.Index? {
        guard start < text.endIndex else { return nil }
        let first = text[start]
        if first == "{" || first == "[" { return nil }
        var index = start
        if first == "\"" {
            index = text.index(after: index)
            while index < text.endIndex, text[index] != "\"" {
                if text[index] == "\\" { index = text.index(after: index) }
                index = text.index(after: index)
            }
            return index < text.endIndex ? text.index(after: index) : nil
        }
        while index < text.endIndex, !",}]".contains(text[index]) { index = text.index(after: index) }
        return index
    }

    static func replaceValue(in text: inout String, with replacement: String, using random: inout SeededGenerator) {
        let starts = valueStarts(in: text)
        guard !starts.isEmpty else { return }
        let start = starts[Int.random(in: 0..<starts.count, using: &random)]
        guard let end = scalarEnd(in: text, from: start) else { return }
        text.replaceSubrange(start..<end, with: replacement)
    }

    static func dropKey(in text: inout String, using random: inout SeededGenerator) {
        let starts = valueStarts(in: text)
        guard !starts.isEmpty else { return }
        let start = starts[Int.random(in: 0..<starts.count, using: &random)]
        guard let end = scalarEnd(in: text, from: start), end < text.endIndex, text[end] == "," else { return }
        // Back to the key's opening quote.
        var keyStart = text.index(start, offsetBy: -2)
        while keyStart > text.startIndex, text[keyStart] != "\"" { keyStart = text.index(before: keyStart) }
        text.removeSubrange(keyStart...end)
    }

    static func duplicateKey(in text: inout String, using random: inout SeededGenerator) {
        let starts = valueStarts(in: text)
        guard !starts.isEmpty else { return }
        let start = starts[Int.random(in: 0..<starts.count, using: &random)]
        guard scalarEnd(in: text, from: start) != nil else { return }
        var keyStart = text.index(start, offsetBy: -2)
        while keyStart > text.startIndex, text[keyStart] != "\"" { keyStart = text.index(before: keyStart) }
        let key = String(text[keyStart..<text.index(start, offsetBy: -1)])
        text.insert(contentsOf: key + ":\"again\",", at: keyStart)
    }
}

/// Random payloads for `FastPlanTests.typed`'s `$Outer`: each key present or not, and of a
/// type that converts or not.
enum RandomPayload {
    static func pick<T>(_ choices: [T], _ random: inout SeededGenerator) -> T {
        choices[Int.random(in: 0..<choices.count, using: &random)]
    }

    static func scalar(_ random: inout SeededGenerator) -> String {
        pick(
            [
                "null", "0", "-0", "1", "-12", "9223372036854775807", "9223372036854775808", "12.5", "1e2", "0.1",
                "true", "false", "\"\"", "\"x\"", "\"12\"", "\" 12 \"", "\"yes\"", "\"a\\\\b\\u0001\\\"\"",
                "\"caf\\u00e9\"", "\"café\"", "\"2020-02-03\"", "\"2020-02-30\"", "\"2012-08-29T14:40:05Z\"",
                "\"https://example.com/a b\"", "\"https://example.com/x?y=1\"", "\"a\"", "\"b\"", "\"d\"",
                "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"", "1700000000123", "[]", "{}", "[1,2,3]", "[\"a\",null]",
                "{\"k\":[1,{\"z\":null}]}", "1.50", "-3.25e-2", "0.000", "-0.50", "100.10", "0.05", "-0.0",
                "12345678901234567.5", "1234567890123456789.5", "7E+2", "\"12.50\"",
            ], &random)
    }

    /// Values of the key's type (as the payload may write it) most of the time, any value at times.
    static func value(for key: String, _ random: inout SeededGenerator) -> String {
        if Int.random(in: 0..<14, using: &random) == 0 { return scalar(&random) }
        let strings = [
            #""""#, #""x""#, #""a b""#, #""caf\u00e9""#, #""café 東京""#, #""tab\t and \"quotes\"""#,
            #""\ud83d\ude80""#, #""\/slash""#, #""caf\u00E9 \uD83D\uDE80 \u004a\u00Ff""#,
        ]
        switch key {
        case "id", "rank", "count":
            return pick(["1", "42", "-7", "0", #""7""#, "9223372036854775807", "null"], &random)
        case "label", "name", "label2": return pick(strings + ["12", "1.5", "true", "null"], &random)
        case "price":
            return pick(
                [
                    "12.50", "0.05", "-0.0", "100", "0", "1e3", #""3.10""#, "-12.345", "99999999999999999.9", "0.000",
                    "-0.500", "1.0E+2", "123456789012345678.90", "12345678901234567890.123456789012345678",
                ], &random)
        case "ratio": return pick(["0.1", "1", "-2.5", "1e-3", #""0.25""#], &random)
        case "on", "flag": return pick(["true", "false", #""yes""#, "0", "1", "null"], &random)
        case "day": return pick([#""2020-02-03""#, #""1999-12-31""#, "null"], &random)
        case "at":
            return pick([#""2012-08-29T14:40:05.123+02:00""#, "null", "1700000000", isoDate(&random)], &random)
        case "link": return url(&random)
        case "key":
            return pick(
                [#""E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#, #""e621e1f8-c36c-495a-93fc-0c247a3e6e5f""#], &random)
        case "kind": return pick([#""a""#, #""b""#, #""c""#], &random)
        case "raw": return pick([#"{"k":[1,{"z":null}],"s":"\u00e9"}"#, "[1.50,2e3]", #""s""#, "-0", "null"], &random)
        case "numbers": return pick(["[1,2,3]", "[]", #"["4",5]"#], &random)
        case "decimals": return pick([#"[1.5,"2"]"#, "[0.10,-3]", "[]"], &random)
        case "tags":
            return pick([#"["a","b"]"#, "[]", "[ ]", #"["\u00e9"]"#, #"[ "a" , "b\n" ]"#, #"["a",1]"#], &random)
        case "stamp": return pick(["1700000000123", "1453671950000", "1609459200000", "-1000"], &random)
        case "state": return pick([#""A""#, #""S""#, #""X""#, "1", "true", #""N""#, "null"], &random)
        case "title": return pick(strings + ["null"], &random)
        case "scores": return pick([#"{"a":1,"b":"2"}"#, "{}", #"{"a":1.5}"#, #"{"a":null}"#], &random)
        case "codes": return pick([#"["x","y"]"#, #"["x","x"]"#, "[]", #"["b","a"]"#], &random)
        case "level": return pick(["1", "2", "3", #""a""#], &random)
        case "byName", "lookup":
            let inner = pick(
                [#"{"name":"n"}"#, #"{"name":"n","rank":"2","tags":["a"]}"#, #"{"rank":1}"#, "{}", #"{"name":1}"#],
                &random)
            return key == "byName" ? inner : pick(["{\"k\":\(inner)}", "{}", "[]"], &random)
        case "grid": return pick(["[[1,2],[]]", "[]", "[[1],[\"2\"]]", "[[1.5]]", "[1]"], &random)
        default: return scalar(&random)
        }
    }

    /// URLs built from pieces Foundation may or may not take: schemes, hosts with ports, users,
    /// odd characters, percent escapes good and bad, fragments.
    static func url(_ random: inout SeededGenerator) -> String {
        let scheme = pick(["https://", "http://", "HTTP://", "ftp://", "https:", "http:///", ""], &random)
        let host = pick(
            [
                "example.com", "a.b", "x", "-a", "a..b", "Example.com", "a_b.c", "10.0.0.1", "[::1]", "a:80",
                "u@a.b", "a:", "é.fr", "",
            ], &random)
        let pieces = [
            "/", "/p", "/a/b", "?q=1", "?a=1&b=2", "#f", "#f#g", "%20", "%2", "%zz", "%e9", " ", "\\t", "/~u",
            "/(x)", "/a;b=c", "/@", "/:", "/[x]", "/{x}", "/|", "/^", "/`", "/\\\"", "/<", "/é", "?", "#",
            "/a'b", "/*+,!$=",
        ]
        var text = scheme + host
        for _ in 0..<Int.random(in: 0...3, using: &random) { text += pick(pieces, &random) }
        return "\"" + text + "\""
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` with fields at and around their limits (leap days, year 0, hour 24…).
    static func isoDate(_ random: inout SeededGenerator) -> String {
        let year = pick([0, 1, 999, 1900, 1970, 2000, 2024, 2100, 9999], &random)
        let month = Int.random(in: 0...13, using: &random)
        let day = pick([0, 1, 15, 28, 29, 30, 31, 32], &random)
        let hour = pick([0, 12, 23, 24], &random)
        let minute = pick([0, 59, 60], &random)
        let second = pick([0, 30, 59, 60], &random)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: 4 - String(year).count) + String(year)
        let separator = pick(["T", "T", "T", "t", " "], &random)
        let zone = pick(["Z", "Z", "Z", "z", "+00:00", ".000Z"], &random)
        return "\"\(yearText)-\(two(month))-\(two(day))\(separator)\(two(hour)):\(two(minute)):\(two(second))\(zone)\""
    }

    static func inner(_ random: inout SeededGenerator) -> String {
        if Int.random(in: 0..<16, using: &random) == 0 { return pick(["null", scalar(&random)], &random) }
        var members: [String] = []
        for key in ["name", "rank", "tags", "at", "other"].shuffled(using: &random)
        where Bool.random(using: &random) || (key == "name" && Int.random(in: 0..<10, using: &random) > 0) {
            members.append("\"\(key)\":\(value(for: key, &random))")
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func outer(using random: inout SeededGenerator) -> String {
        var members: [String] = []
        let keys = [
            "id", "label", "price", "ratio", "on", "day", "link", "key", "kind", "raw", "numbers", "meta", "inner",
            "items", "flag", "label2", "stamp", "decimals", "noise", "state", "title", "scores", "codes", "level",
            "byName", "grid", "lookup",
        ]
        for key in keys.shuffled(using: &random)
        where Int.random(in: 0..<4, using: &random) > 0 || (key == "id" && Int.random(in: 0..<10, using: &random) > 0) {
            let value: String
            switch key {
            case "meta":
                let rows = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    "{\"cells\":["
                        + (0..<Int.random(in: 0...2, using: &random)).map { _ in
                            "{\"n\":\(self.value(for: "id", &random))}"
                        }.joined(separator: ",") + "]}"
                }
                let words = pick([#"["a","b"]"#, "[]", scalar(&random)], &random)
                let title = Bool.random(using: &random) ? "\"title\":\(self.value(for: "title", &random))," : ""
                value =
                    "{\(title)\"words\":\(words),\"rows\":[\(rows.joined(separator: ","))],\"count\":\(self.value(for: "count", &random))}"
            case "inner": value = inner(&random)
            case "items":
                value =
                    Int.random(in: 0..<12, using: &random) == 0
                    ? scalar(&random)
                    : "["
                        + (0..<Int.random(in: 0...3, using: &random)).map { _ in inner(&random) }.joined(separator: ",")
                        + "]"
            default: value = self.value(for: key, &random)
            }
            members.append("\"\(key)\":\(value)")
            if Int.random(in: 0..<30, using: &random) == 0 {
                members.append("\"\(key)\":\(self.value(for: key, &random))")
            }
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}
