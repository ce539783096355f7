import Foundation
import Mappings
import MappingsSpark
import MappingsTestSupport
import Testing

@testable import MappingsEncoding
@testable import MappingsPython

/// The sessions `map_lines` and `to_arrow` run on: results in input order with their lines,
/// and, for Arrow, a record that would take a batch past its limit is a reject, never offsets
/// that wrap.
@Suite struct LineSessionTests {
    static func context(forArrow: Bool) throws -> PythonContext {
        let folder = try Fixtures.directory(with: [
            "contexts/orders.mappings": """
            {
              "@models": { "Order": { "id": "Int", "note": "String" } },
              "$Order": { "@class": "Order", "id": "id", "note": "note" }
            }
            """
        ])
        let catalog = try PythonCatalog.load(
            contexts: folder.appendingPathComponent("contexts").path,
            scripts: folder.appendingPathComponent("scripts").path, options: .object(JSONObject()), log: { _ in })
        return try PythonContext(owner: catalog, identifier: "$Order", forArrow: forArrow)
    }

    /// Each result's line and status, read from `ResultWriter`'s form.
    static func lines(_ results: [UInt8]) -> [(line: Int, status: UInt8)] {
        read(results).map { ($0.line, $0.status) }
    }

    /// Each result's line, status and the `id` of its value (-1 without one).
    static func read(_ results: [UInt8]) -> [(line: Int, status: UInt8, id: Int)] {
        var found: [(Int, UInt8, Int)] = []
        results.withUnsafeBytes { bytes in
            var reader = TagReader(bytes: bytes)
            while reader.position < bytes.count {
                let line = reader.count()
                let status = bytes[reader.position]
                reader.position += 1
                var id = -1
                let tag = reader.tag()
                if tag == .object {
                    for _ in 0..<reader.count() {
                        let key = String(decoding: reader.text(), as: UTF8.self)
                        let member = reader.tag()
                        if key == "id", member == .integer {
                            id = Int(Int64(bitPattern: reader.word()))
                        } else {
                            reader.skip(member)
                        }
                    }
                } else {
                    reader.skip(tag)
                }
                reader.skip(reader.tag())
                if status == 2 || status == 3 { _ = reader.text() }
                found.append((line, status, id))
            }
        }
        return found
    }

    static func records(_ range: ClosedRange<Int>) -> [UInt8] {
        Array(range.map { #"{"id": \#($0), "note": "\#(String(repeating: "n", count: 40))"}"# + "\n" }.joined().utf8)
    }

    /// On two lanes, and on the calling thread (no workers).
    @Test(arguments: [2, 0]) func resultsComeInInputOrder(workers: Int) throws {
        let session = LineSession(context: try Self.context(forArrow: false), workers: workers)
        session.submit(Self.records(1...300) + Array("\nnot json\n".utf8))
        session.submit(Self.records(303...600))
        var all: [(line: Int, status: UInt8)] = []
        while let results = session.take() { all += Self.lines(results) }
        #expect(all.map(\.line) == Array(1...300) + [302] + Array(303...600))
        #expect(all.filter { $0.status == 3 }.map(\.line) == [302])
    }

    /// A session refills the storage of blocks it took: a smaller block in a larger one's
    /// storage maps its own lines only, never what the larger one left past its end; lines
    /// of which one holds a line feed are refused whole, and the session goes on.
    @Test(arguments: [1, 2, 0]) func blocksRefillTheStorageOfBlocksTaken(workers: Int) throws {
        let session = LineSession(context: try Self.context(forArrow: false), workers: workers)
        var next = 1
        var expected: [Int] = []
        var seen: [(line: Int, id: Int)] = []
        for (round, count) in [3000, 2800, 400, 2500, 1200, 3100, 600, 2000, 90, 2900].enumerated() {
            let ids = next...(next + count - 1)
            if round.isMultiple(of: 2) {
                session.submit(Self.records(ids))
            } else {
                // As the module gathers an iterable's lines: each without its line feed.
                let lines = ids.map { id -> UnsafeMutableBufferPointer<UInt8> in
                    let text = #"{"id": \#(id), "note": "\#(String(repeating: "m", count: id % 70))"}"#.utf8
                    let line = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: text.count)
                    _ = line.initialize(from: text)
                    return line
                }
                // First with a line that holds a line feed: nothing of them is queued.
                let pendingBefore = session.pendingBlocks
                let broken = lines.count / 2
                lines[broken][lines[broken].count - 2] = 0x0A
                #expect(session.submit(lines: lines.map { UnsafeBufferPointer($0) }) == broken)
                #expect(session.pendingBlocks == pendingBefore)
                lines[broken][lines[broken].count - 2] = UInt8(ascii: "\"")
                #expect(session.submit(lines: lines.map { UnsafeBufferPointer($0) }) == nil)
                for line in lines { line.deallocate() }
            }
            expected += ids
            next += count
            while session.pendingBlocks > 2, let results = session.take() {
                seen += Self.read(results).map { ($0.line, $0.id) }
            }
        }
        while let results = session.take() { seen += Self.read(results).map { ($0.line, $0.id) } }
        #expect(seen.map(\.line) == expected)
        #expect(seen.map(\.id) == expected)
    }

    @Test(arguments: [1, 0]) func aRecordPastTheBatchLimitIsARejectOfItsOwn(workers: Int) throws {
        let session = LineSession(context: try Self.context(forArrow: true), workers: workers, batchLimit: 2_000)
        session.submit(Self.records(1...100))
        var rejected: [Int] = []
        while let results = session.take() { rejected += Self.lines(results).map(\.line) }
        let kept = session.arrow?.rows ?? 0
        #expect(kept > 0 && kept < 100)
        #expect(rejected == Array((kept + 1)...100))
    }

    /// The calling thread's results are the lanes', byte for byte: clean records, errors, not
    /// JSON, blank lines, carriage returns, escapes; given as whole text and as lines; and
    /// `takeHeld` hands the same bytes over.
    @Test func theCallingThreadsResultsAreTheLanes() throws {
        let context = try Self.context(forArrow: false)
        var lines: [String] = []
        for id in 1...700 {
            switch id % 9 {
            case 1: lines.append(#"{"id": "\#(id)", "note": "an id that is text"}"#)
            case 2: lines.append(#"{"id": \#(id), "note": "# + "\r")
            case 3: lines.append(" \t")
            case 4: lines.append(#"{"id": \#(id), "note": "tab\there \u00e9 \ud83d\ude00 \"q\""}"# + "\r")
            case 5: lines.append(#"{"id": \#(id)}"#)
            default: lines.append(#"{"id": \#(id), "note": "n\#(id)"}"#)
            }
        }
        let text = Array((lines.joined(separator: "\n") + "\n").utf8)
        func all(_ session: LineSession, held: Bool = false) -> [UInt8] {
            var out: [UInt8] = []
            while let results = held ? session.takeHeld().map(Array.init) : session.take() { out += results }
            return out
        }
        let lanes = LineSession(context: context, workers: 1)
        lanes.submit(text)
        let expected = all(lanes)
        #expect(Set(Self.lines(expected).map(\.status)) == [0, 2, 3])
        #expect(Self.lines(expected).count == 700 - (1...700).filter { $0 % 9 == 3 }.count)
        let whole = LineSession(context: context, workers: 0)
        whole.submit(text)
        #expect(all(whole, held: true) == expected)
        let parts = LineSession(context: context, workers: 0)
        let copies = lines.map { line -> UnsafeMutableBufferPointer<UInt8> in
            let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: line.utf8.count)
            _ = copy.initialize(from: line.utf8)
            return copy
        }
        defer { for copy in copies { copy.deallocate() } }
        #expect(parts.submit(lines: copies.map { UnsafeBufferPointer($0) }) == nil)
        #expect(all(parts) == expected)
    }
}
