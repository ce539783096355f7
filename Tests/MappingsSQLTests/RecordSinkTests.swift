import Foundation
import Mappings
import MappingsEngine
import MappingsTestSupport
import Testing

@testable import MappingsSQL

/// A host's way into a database: `MappingStream.map(_:into:from:reported:)` writing into a
/// `DatabaseSink`, or into a sink of its own, with the positions a stopped job resumes from.
@Suite("Streams into record sinks")
struct RecordSinkTests {
    /// Orders with repeated identities, lines that are not JSON, records with errors, blank
    /// lines and a line holding a line feed: what a host's input holds.
    static func lines(_ count: Int) -> [[UInt8]] {
        var generator = SeededGenerator(seed: 49)
        var lines: [[UInt8]] = []
        for index in 0..<count {
            let id = Int.random(in: 1...(count / 3), using: &generator)
            let text: String
            switch index % 23 {
            case 5: text = #"{"id": \#(id), "lines": [], "paid": tru"#
            case 11: text = #"{"id": "not a number", "lines": [], "paid": true}"#
            case 17: text = "  "
            case 19 where index == 19: text = "{\"id\": 1,\n \"lines\": [], \"paid\": true}"
            default:
                let amount = "\(Int.random(in: 0...99_999, using: &generator)).\(index % 7)0"
                text =
                    #"{"id": \#(id), "total": {"amount": \#(amount), "currency": "EUR"}, "lines": [{"amount": 1.10, "currency": "EUR"}], "paid": \#(index % 2 == 0), "note": "n\#(index) \u00e9\t", "weight": \#(Double(index) / 8)}"#
            }
            lines.append(Array(text.utf8))
        }
        return lines
    }

    static func stream(workers: Int = 2) throws -> (MappingStream, Catalog, CompiledContext) {
        let catalog = try load(SQLTableTests.source)
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$Order")
        let records = RecordMapper(mapper: mapper, context: context)
        // Blocks of 16 KiB: many blocks, so many positions, out of a few hundred records.
        return (MappingStream(records: records, workers: workers, maxInFlight: 1 << 16), catalog, context)
    }

    static func options(job: String, batch: Int = 7) -> DatabaseSink.Options {
        var options = DatabaseSink.Options()
        options.createTables = true
        options.job = job
        options.batchRecords = batch
        options.batchInterval = .seconds(3600)
        options.rejectsTable = "rejects"
        return options
    }

    /// A new temporary folder.
    static func folder() throws -> URL { try Fixtures.directory(with: ["README": "databases of a test\n"]) }

    /// Bytes of `lines` as a file holds them, each ended by a line feed.
    static func size(_ lines: ArraySlice<[UInt8]>) -> Int { lines.reduce(0) { $0 + $1.count + 1 } }

    @Test("records into SQLite; the job started again at its stored position ends as one run does")
    func resumedJobEqualsOneRun() throws {
        let lines = Self.lines(700)
        let folder = try Self.folder()
        let (stream, catalog, context) = try Self.stream()

        let whole = folder.appendingPathComponent("whole.db").path
        let one = try DatabaseSink(
            .sqlite(path: whole), context: context, in: catalog, options: Self.options(job: "orders"))
        let report = try stream.map(lines, into: one, from: RecordPosition(source: "orders.ndjson"))
        let records = lines.filter { !$0.allSatisfy { $0 == 0x20 } }.count
        #expect(report.records == records)
        #expect(report.written + report.rejected + report.filtered == records)
        #expect(report.rejected == 31 + 30 + 1)
        let end = RecordPosition(source: "orders.ndjson", line: 701, offset: Self.size(lines[...]))
        #expect(report.end == end)
        #expect(one.committed == end)
        #expect(try one.storedPosition() == end)

        // Stopped after 300 lines (a host whose input ended there), then started again from
        // where its job stands, with another sink, as a restarted process would.
        let split = folder.appendingPathComponent("split.db").path
        let first = try DatabaseSink(
            .sqlite(path: split), context: context, in: catalog, options: Self.options(job: "orders", batch: 50))
        #expect(try first.storedPosition() == nil)
        try stream.map(lines[..<300], into: first, from: RecordPosition(source: "orders.ndjson"))
        // One sink a job: a second is refused until the first lets go of it.
        #expect(throws: RecordSinkFailure.self) {
            try DatabaseSink(.sqlite(path: split), context: context, in: catalog, options: Self.options(job: "orders"))
        }
        first.close()
        #expect(throws: RecordSinkFailure.self) { try first.storedPosition() }
        let again = try DatabaseSink(
            .sqlite(path: split), context: context, in: catalog, options: Self.options(job: "orders", batch: 50))
        let stored = try #require(try again.storedPosition())
        #expect(stored == RecordPosition(source: "orders.ndjson", line: 301, offset: Self.size(lines[..<300])))
        let rest = try stream.map(lines[(stored.line - 1)...], into: again, from: stored)
        #expect(rest.end == end)

        let rows = "SELECT * FROM \"order\" ORDER BY order_id"
        let wholeRows = try SQLiteDatabase(path: whole).rows(rows)
        #expect(wholeRows.count > 100)
        #expect(try SQLiteDatabase(path: split).rows(rows) == wholeRows)
        let rejects = "SELECT file, line, input FROM rejects ORDER BY line"
        let wholeRejects = try SQLiteDatabase(path: whole).rows(rejects)
        #expect(wholeRejects.count == 62)
        #expect(try SQLiteDatabase(path: split).rows(rejects) == wholeRejects)
        #expect(
            wholeRejects.first == ["orders.ndjson", "6", #"{"id": \#(extractID(lines[5])), "lines": [], "paid": tru"#])
        #expect(wholeRejects.contains { $0[1] == "20" && $0[2]?.contains("\n") == true })
    }

    private func extractID(_ line: [UInt8]) -> String {
        let text = String(decoding: line, as: UTF8.self)
        return String(text.dropFirst(#"{"id": "#.count).prefix { $0.isNumber })
    }

    @Test("a sink of the host's own gets each written record's JSON line and a position after every block")
    func ownSink() throws {
        let lines = Self.lines(900)
        let (stream, _, _) = try Self.stream(workers: 2)
        var expected: [[UInt8]] = []
        var expectedRejects: [Int] = []
        stream.map(lines) { record in
            if record.outcome.kind == .clean || record.outcome.kind == .withWarnings {
                expected.append(record.output!)
            } else {
                expectedRejects.append(record.index)
            }
        }
        let sink = CollectingSink()
        var reported: [Int] = []
        let report = try stream.map(lines, into: sink) { record in
            #expect(record.output == nil)
            reported.append(record.index)
        }
        #expect(sink.records == expected)
        #expect(reported == expectedRejects)
        #expect(sink.rejects.map { $0.line - 1 } == expectedRejects)
        #expect(sink.rejects.allSatisfy { !$0.issues.isEmpty })
        // A position after every block at least: blocks of 16 KiB and a line (`maxInFlight` 64 KiB).
        #expect(sink.positions.count >= Self.size(lines[...]) / (20 << 10))
        #expect(sink.positions.count > 4)
        // Every position is the start of a line: its offset the bytes of the lines before it.
        for position in sink.positions {
            #expect(position.offset == Self.size(lines[..<(position.line - 1)]))
        }
        #expect(zip(sink.positions, sink.positions.dropFirst()).allSatisfy { $0.line <= $1.line })
        #expect(sink.finished == RecordPosition(line: 901, offset: Self.size(lines[...])))
        #expect(report.written == expected.count)
    }

    @Test("a sink that fails stops the stream; what it committed last is where the next run starts")
    func failingSink() throws {
        let lines = Self.lines(900)
        let (stream, _, _) = try Self.stream()
        let sink = CollectingSink(failAfter: 3)
        #expect(throws: RecordSinkFailure.self) { try stream.map(lines, into: sink) }
        let committed = try #require(sink.committed)
        #expect(committed == sink.positions[2])
        #expect(sink.finished == nil)
        #expect(committed.offset == Self.size(lines[..<(committed.line - 1)]))
        // The next run from there adds exactly the records the first did not commit.
        let rest = CollectingSink()
        try stream.map(lines[(committed.line - 1)...], into: rest, from: committed)
        let whole = CollectingSink()
        try stream.map(lines, into: whole)
        #expect(sink.committedLines + rest.records == whole.records)
    }

    @Test("a destination that is not one is refused, and a context without a table names why")
    func refusals() throws {
        #expect(DatabaseSink.Destination("mysql://x") == nil)
        #expect(DatabaseSink.Destination("sqlite:") == nil)
        #expect(DatabaseSink.Destination("sqlite:a.db") == .sqlite(path: "a.db"))
        let folder = try Self.folder()
        let database = folder.appendingPathComponent("bad.db").path
        try SQLiteDatabase(path: database).execute(#"CREATE TABLE "order" ("order_id" TEXT)"#)
        let (_, catalog, context) = try Self.stream()
        var options = Self.options(job: "x")
        options.createTables = false
        let failure = #expect(throws: RecordSinkFailure.self) {
            try DatabaseSink(.sqlite(path: database), context: context, in: catalog, options: options)
        }
        #expect(failure?.unavailable == false)
        #expect(failure?.message.contains(#"it has no column "paid""#) == true)
        // The refused sink let go of its job: asked again, the same refusal, not "running".
        let again = #expect(throws: RecordSinkFailure.self) {
            try DatabaseSink(.sqlite(path: database), context: context, in: catalog, options: options)
        }
        #expect(again?.message.contains(#"it has no column "paid""#) == true)
    }

    @Test("records that are not clean are reported in input order, warnings and rejects mixed")
    func reportedInOrder() throws {
        // Unknown keys warn: a record with an extra key is written, and reported.
        let catalog = try load(
            #"{ "@models": { "P": { "name": "String", "age": "Int?" } }, "$P": { "@class": "P", "@unknownKeys": "warn", "name": "n", "age": { "@keyPath": "a", "@optional": true } } }"#
        )
        let mapper = Mapper(catalog: catalog)
        let stream = MappingStream(
            records: RecordMapper(mapper: mapper, context: try mapper.context("$P")), workers: 2, maxInFlight: 1 << 16)
        var random = SeededGenerator(seed: 48)
        let kinds = [
            #"{"n": "x", "a": 1}"#, #"{"n": "x", "extra": true}"#, #"{"a": 2}"#, #"{"n": "#, "",
            #"{"n": "y", "a": "old"}"#,
        ]
        let lines = (0..<3000).map { _ in Array(kinds.randomElement(using: &random)!.utf8) }
        var expected: [Int] = []
        stream.map(lines) { record in
            if record.outcome.kind != RecordOutcome.Kind.clean { expected.append(record.index) }
        }
        #expect(expected.count > 500)
        let sink = CollectingSink()
        var reported: [Int] = []
        let report = try stream.map(lines, into: sink) { reported.append($0.index) }
        #expect(reported == expected)
        #expect(report.records == lines.filter { !$0.isEmpty }.count)
    }

    @Test("a mapping into a database sink that fails leaves it at its last commit: reused from there, nothing twice")
    func failedMappingDiscards() throws {
        let lines = Self.lines(700)
        let folder = try Self.folder()
        let (stream, catalog, context) = try Self.stream()
        let whole = folder.appendingPathComponent("whole.db").path
        try stream.map(
            lines,
            into: try DatabaseSink(
                .sqlite(path: whole), context: context, in: catalog, options: Self.options(job: "a")),
            from: RecordPosition(source: "orders.ndjson"))
        let reused = folder.appendingPathComponent("reused.db").path
        let sink = try DatabaseSink(
            .sqlite(path: reused), context: context, in: catalog, options: Self.options(job: "a", batch: 20))
        struct Interrupted: Error {}
        var seen = 0
        #expect(throws: Interrupted.self) {
            try stream.map(lines, into: sink, from: RecordPosition(source: "orders.ndjson")) { _ in
                seen += 1
                if seen == 40 { throw Interrupted() }
            }
        }
        let committed = try #require(sink.committed)
        #expect(committed.line > 1 && committed.line < 701)
        try stream.map(lines[(committed.line - 1)...], into: sink, from: committed)
        for query in [
            "SELECT * FROM \"order\" ORDER BY order_id", "SELECT file, line, input FROM rejects ORDER BY line",
        ] {
            #expect(try SQLiteDatabase(path: reused).rows(query) == SQLiteDatabase(path: whole).rows(query))
        }
    }
}

/// A sink that keeps what it is given, committing at every position (or failing on the
/// `failAfter`+1-th).
final class CollectingSink: RecordSink {
    var records: [[UInt8]] = []
    var rejects: [(line: Int, issues: [MappingIssue])] = []
    var positions: [RecordPosition] = []
    var finished: RecordPosition?
    var committed: RecordPosition?
    var committedRecords = 0
    /// The records committed, as `records` held them at each commit.
    var committedLines: [[UInt8]] = []
    let failAfter: Int?
    var takesRejects: Bool { true }

    init(failAfter: Int? = nil) { self.failAfter = failAfter }

    func add(_ bytes: ArraySlice<UInt8>) {
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
            records.append(Array(line))
        }
    }

    func reject(source: String?, line: Int, input: [UInt8], issues: [MappingIssue]) {
        rejects.append((line, issues))
    }

    func reached(_ position: RecordPosition) throws(RecordSinkFailure) {
        if let failAfter, positions.count == failAfter {
            throw RecordSinkFailure("the destination went away", unavailable: true)
        }
        positions.append(position)
        committed = position
        committedLines = records
        committedRecords = records.count
    }

    func finish(at position: RecordPosition) throws(RecordSinkFailure) {
        finished = position
        committed = position
        committedLines = records
    }

    func discard() { records = committedLines }
}
