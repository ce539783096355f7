import Foundation
import Mappings
import MappingsTestSupport
import Testing

/// The record path for Swift hosts: `RecordMapper` one record at a time, `MappingStream` many
/// cores wide; the same results, in input order, whatever the lanes.
@Suite("the record path: RecordMapper and MappingStream")
struct MappingStreamTests {
    /// `$U` has a fast plan; `$W` (which warns of unknown keys) has none.
    static let text = """
        { "@models": { "U": { "name": "String", "age": "Int?", "tags": "[String]?" } },
          "$U": { "@class": "U", "name": "n", "age": { "@keyPath": "a", "@optional": true },
                  "tags": { "@keyPath": "t", "@optional": true } },
          "$W": { "@class": "U", "@unknownKeys": "warn", "name": "n", "age": { "@keyPath": "a", "@optional": true },
                  "tags": { "@keyPath": "t", "@optional": true } } }
        """

    /// Clean records, records with warnings and errors, lines that are not JSON, blank lines
    /// and a line holding a line feed, in a seeded order.
    static func lines(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { index -> [UInt8] in
            let text: String
            switch Int.random(in: 0..<20, using: &random) {
            case 0: text = #"{"a": 3}"#
            case 1: text = #"{"n": "x", "t": ["a", "b"], "extra": 1}"#
            case 2: text = #"{"n": "y", "a": "old"}"#
            case 3: text = #"{"n": "#
            case 4: text = "   "
            case 5: text = "{\"n\":\n\"z\"}"
            default: text = #"{"n": "r\#(index)", "a": \#(index), "t": ["\#(index)"]}"#
            }
            return Array(text.utf8)
        }
    }

    @Test(
        "every lane count gives each record's result as one mapper does, in input order",
        arguments: ["$U", "$W"], [1, 2, 4])
    func sameAsOneByOne(context: String, workers: Int) throws {
        let mapper = Mapper(catalog: try load(Self.text))
        let records = RecordMapper(mapper: mapper, context: try mapper.context(context))
        #expect(records.hasFastPlan == (context == "$U"))
        let lines = Self.lines(count: 5_000, seed: 0x5EA)
        var results: [MappedRecord] = []
        // A small bound: many blocks, and lanes that wait for room.
        MappingStream(records: records, workers: workers, maxInFlight: 1 << 16).map(lines) { results.append($0) }
        var expected: [(index: Int, output: [UInt8]?, kind: RecordOutcome.Kind, issues: [String])] = []
        for (index, line) in lines.enumerated() where !line.allSatisfy({ $0 == 0x20 }) {
            if line.contains(0x0A) {
                expected.append((index, nil, .invalid, []))
                continue
            }
            var out: [UInt8] = []
            let outcome = records.map(line, into: &out)
            expected.append(
                (index, outcome.kind == .invalid ? nil : out, outcome.kind, outcome.issues.map(\.description)))
        }
        #expect(results.count == expected.count)
        for (got, want) in zip(results, expected) {
            #expect(got.index == want.index)
            #expect(got.output == want.output, "record \(want.index)")
            #expect(got.outcome.kind == want.kind, "record \(want.index)")
            #expect(got.outcome.issues.map(\.description) == want.issues, "record \(want.index)")
        }
        #expect(results.filter { $0.outcome.kind == .withErrors }.count > 100)
        #expect(results.filter { $0.outcome.kind == .withWarnings }.count > (context == "$W" ? 100 : -1))
        #expect(results.filter { $0.outcome.kind == .invalid }.count > 200)
    }

    @Test(
        "a text held whole (a server's NDJSON body) gives what its lines give, CRLF and a last line without its end too",
        arguments: [1, 2, 4])
    func wholeText(workers: Int) throws {
        let mapper = Mapper(catalog: try load(Self.text))
        let records = RecordMapper(mapper: mapper, context: try mapper.context("$W"))
        let lines = Self.lines(count: 4_000, seed: 0x7E7).filter { !$0.contains(0x0A) }
        let stream = MappingStream(records: records, workers: workers, maxInFlight: 1 << 16)
        var expected: [MappedRecord] = []
        stream.map(lines) { expected.append($0) }
        for ending in ["\n", "\r\n"] {
            var text = Array(lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ending).utf8)
            if ending == "\n" { text += Array(ending.utf8) }
            var got: [(index: Int, output: [UInt8]?, outcome: RecordOutcome)] = []
            stream.map(text: text) { index, output, outcome in got.append((index, output.map(Array.init), outcome)) }
            #expect(got.count == expected.count)
            for (mine, want) in zip(got, expected) {
                #expect(mine.index == want.index)
                #expect(mine.output == want.output, "record \(want.index)")
                #expect(mine.outcome.kind == want.outcome.kind, "record \(want.index)")
                #expect(mine.outcome.issues.map(\.description) == want.outcome.issues.map(\.description))
            }
        }
        var none: [Int] = []
        stream.map(text: []) { index, _, _ in none.append(index) }
        #expect(none.isEmpty)
    }

    @Test("a record the fast plan cannot write goes through the general engine, with the same bytes")
    func planAndEngine() throws {
        let mapper = Mapper(catalog: try load(Self.text))
        let context = try mapper.context("$U")
        let planned = RecordMapper(mapper: mapper, context: context)
        let general = RecordMapper(mapper: mapper, context: context, usesFastPlan: false)
        #expect(!general.hasFastPlan)
        var byPlan = 0
        for line in Self.lines(count: 500, seed: 7) where !line.contains(0x0A) {
            var a: [UInt8] = []
            var b: [UInt8] = []
            let fast = planned.map(line, into: &a)
            let slow = general.map(line, into: &b)
            #expect(a == b)
            #expect(fast.kind == slow.kind)
            #expect(!slow.byFastPlan)
            if fast.byFastPlan {
                byPlan += 1
                #expect(fast.kind == .clean)
            }
        }
        #expect(byPlan > 100)
    }
}

/// A block whose maker knew its line feeds finds its lines by them: the same lines as by
/// looking, from every start, in every part, with `\r` before a line feed dropped.
@Suite("lines of a block whose line feeds are known")
struct KnownLineEndsTests {
    @Test("the same lines as found by memchr, from every start and in parts", arguments: 0..<20)
    func sameLines(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed))
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for _ in 0..<Int.random(in: 1...40, using: &random) {
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                bytes.append([UInt8(ascii: "a"), 0x20, 0x0D, UInt8(ascii: "{")].randomElement(using: &random)!)
            }
            ends.append(bytes.count)
            bytes.append(0x0A)
        }
        // Sometimes a last line without its line feed (the input's end).
        if Bool.random(using: &random) { bytes += Array("tail".utf8) }
        let catalog = try load(MappingStreamTests.text)
        let mapper = Mapper(catalog: catalog)
        let records = RecordMapper(mapper: mapper, context: try mapper.context("$U"))
        let known = RecordBlock(bytes: bytes, offset: 0, records: records, writesErrors: true, lineEnds: ends)
        let looked = RecordBlock(bytes: bytes, offset: 0, records: records, writesErrors: true)
        func lines(_ block: RecordBlock, from start: Int? = nil) -> [[Int]] {
            var found: [[Int]] = []
            block.forEachLine(from: start) { line, next in
                found.append([line.lowerBound, line.upperBound, next])
                return true
            }
            return found
        }
        #expect(lines(known) == lines(looked))
        for start in [0] + ends.map({ $0 + 1 }) where start <= bytes.count {
            #expect(lines(known, from: start) == lines(looked, from: start))
        }
        if let (first, second) = looked.split(), let (knownFirst, knownSecond) = known.split() {
            #expect(lines(knownFirst) == lines(first))
            #expect(lines(knownSecond) == lines(second))
            #expect(knownSecond.lineCount() == second.lineCount())
        }
    }
}
