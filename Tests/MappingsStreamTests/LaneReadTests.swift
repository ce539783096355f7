import Foundation
import Mappings
import MappingsStream
import MappingsTestSupport
import Testing

/// With `--workers N` on a regular file each lane reads its own byte range (`LaneRead`): the
/// lines that start in a range are its block. Whatever the ranges, every line is in exactly one
/// block, whole, and in order — held here to a plain split of the file, with ranges of every
/// size cutting lines at every place — and the stream writes what the one reader makes of it.
@Suite("lanes reading their own ranges of a file")
struct LaneReadTests {
    static let mapper = Mapper(
        catalog: try! load(#"{ "@models": { "R": { "id": "Int" } }, "$R": { "@class": "R", "id": "id" } }"#))

    /// A file of random lines: empty ones, `\r\n` ends, lines of 0 to `longest` bytes, and
    /// (when `lastEnds` is false) a last line without its end.
    static func text(lines: Int, longest: Int, lastEnds: Bool, random: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        for index in 0..<lines {
            let length = Int.random(in: 0...longest, using: &random)
            for _ in 0..<length { bytes.append(UInt8.random(in: 0x61...0x7A, using: &random)) }
            if Int.random(in: 0..<8, using: &random) == 0 { bytes.append(0x0D) }
            if index < lines - 1 || lastEnds { bytes.append(0x0A) }
        }
        return bytes
    }

    /// What a reader makes of `bytes`: each line (without its `\n`), or, over `maximum`, the
    /// offset of a line it skips.
    enum Item: Equatable, CustomStringConvertible {
        case line([UInt8])
        case overlong(offset: Int, head: [UInt8])

        var description: String {
            switch self {
            case .line(let bytes): "line(\(bytes.count))"
            case .overlong(let offset, _): "overlong@\(offset)"
            }
        }
    }

    static func expected(_ bytes: [UInt8], from start: Int, maximum: Int) -> [Item] {
        var items: [Item] = []
        var lineStart = start
        while lineStart < bytes.count {
            let end = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
            if end - lineStart > maximum {
                items.append(.overlong(offset: lineStart, head: Array(bytes[lineStart..<min(end, lineStart + 200)])))
            } else {
                var line = bytes[lineStart..<end]
                if line.last == 0x0D { line = line.dropLast() }
                items.append(.line(Array(line)))
            }
            lineStart = end + 1
        }
        return items
    }

    /// Reads `path` in ranges of random sizes from `start` (a line's start), as the lanes would.
    static func readInRanges(
        _ path: String, size: Int, from start: Int, maximum: Int, ranges: ClosedRange<Int>,
        random: inout SeededGenerator
    ) throws -> [Item] {
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let records = RecordMapper(mapper: mapper, context: try mapper.context("$R"))
        var items: [Item] = []
        var offset = start
        while offset < size {
            let range = offset..<min(size, offset + Int.random(in: ranges, using: &random))
            let read = LaneRead(
                descriptor: descriptor, range: range, startsLine: offset == start, records: records,
                writesErrors: true, maximumLine: maximum)
            let block = try read.read().get()
            block.forEachLine { line, _ in
                items.append(.line(Array(block.bytes[line])))
                return true
            }
            if let overlong = block.overlong { items.append(.overlong(offset: overlong.offset, head: overlong.head)) }
            offset = range.upperBound
        }
        return items
    }

    @Test("ranges of every size, lines cut at every place: each line once, whole, in order", arguments: 0..<40)
    func everyCut(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(0x1A4E + seed))
        let maximum = seed % 3 == 0 ? 24 : 10_000
        let bytes = Self.text(
            lines: Int.random(in: 1...300, using: &random), longest: seed % 3 == 0 ? 60 : 40,
            lastEnds: seed % 2 == 0, random: &random)
        let directory = try ToolRunner.directory(with: ["lines.ndjson": ""])
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("lines.ndjson").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // From the top, and from a line in the middle (where a resumed run starts).
        let middle = (bytes[(bytes.count / 2)...].firstIndex(of: 0x0A)).map { $0 + 1 } ?? 0
        for start in [0, middle] {
            let want = Self.expected(bytes, from: start, maximum: maximum)
            for ranges in [1...1, 1...3, 1...24, 5...80] where ranges.upperBound <= maximum {
                let got = try Self.readInRanges(
                    path, size: bytes.count, from: start, maximum: maximum, ranges: ranges, random: &random)
                let differ = Array(zip(got, want)).firstIndex { $0 != $1 } ?? min(got.count, want.count)
                #expect(
                    got == want,
                    "ranges \(ranges) from \(start), item \(differ) of \(want.count): \(got.dropFirst(differ).prefix(3)) instead of \(want.dropFirst(differ).prefix(3))"
                )
            }
        }
    }

    @Test("where a run resumes in a range not read: the first line starting in it")
    func lineStart() throws {
        let bytes = Array("ab\n\ncde\nf".utf8)
        let directory = try ToolRunner.directory(with: ["x": String(decoding: bytes, as: UTF8.self)])
        defer { try? FileManager.default.removeItem(at: directory) }
        let descriptor = open(directory.appendingPathComponent("x").path, O_RDONLY)
        defer { close(descriptor) }
        let starts = (0...bytes.count).map { LaneRead.lineStart(of: descriptor, atOrAfter: $0, startsLine: false) }
        #expect(starts == [0, 3, 3, 3, 4, 8, 8, 8, 8, nil])
        #expect(LaneRead.lineStart(of: descriptor, atOrAfter: 4, startsLine: true) == 4)
        #expect(LaneRead.lineStart(of: descriptor, atOrAfter: bytes.count, startsLine: true) == nil)
    }

    /// Records of every kind for the stream: good ones of many lengths, blank lines, `\r\n`,
    /// records with issues, lines that are not JSON, and a last line without its end.
    static func records(_ count: Int, seed: UInt64) -> String {
        var random = SeededGenerator(seed: seed)
        var text = ""
        for index in 0..<count {
            switch Int.random(in: 0..<40, using: &random) {
            case 0: text += "\n"
            case 1: text += #"{"id": "x\#(index)"}"# + "\n"
            case 2: text += #"{"id": \#(index), "# + "\n"
            case 3: text += #"{"id": \#(index)}"# + "\r\n"
            default:
                let pad = String(repeating: "p", count: Int.random(in: 0...3_000, using: &random))
                text += #"{"id": \#(index), "pad": "\#(pad)"}"# + "\n"
            }
        }
        return text + #"{"id": -1}"#
    }

    @Test("the stream with lanes reading writes what one reader does: output, rejects, counts")
    func streamAgrees() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/r.mappings": #"{ "@models": { "R": { "id": "Int" } }, "$R": { "@class": "R", "id": "id" } }"#,
            "a.ndjson": Self.records(6_000, seed: 0xA1), "b.ndjson": Self.records(3_000, seed: 0xB2),
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        func run(_ workers: String) throws -> (ToolRunner.Result, String, String) {
            let result = try ToolRunner.run(
                [
                    "stream", "--context", "$R", "--workers", workers, "--max-in-flight", "1", "--rejects",
                    "rejects\(workers).ndjson", "--stats", "stats\(workers).json", "a.ndjson", "b.ndjson",
                ], in: directory)
            let rejects = try String(
                contentsOf: directory.appendingPathComponent("rejects\(workers).ndjson"), encoding: .utf8)
            let stats = try String(
                contentsOf: directory.appendingPathComponent("stats\(workers).json"), encoding: .utf8)
            return (result, rejects, stats)
        }
        let (one, oneRejects, oneStats) = try run("1")
        #expect(one.status == 1)
        #expect(oneRejects.split(separator: "\n").count > 100)
        for workers in ["2", "3"] {
            let (many, manyRejects, manyStats) = try run(workers)
            #expect(many.status == one.status)
            #expect(many.stdout == one.stdout)
            #expect(manyRejects == oneRejects)
            #expect(many.stderr == one.stderr)
            for key in ["\"read\"", "\"written\"", "\"rejected\"", "\"invalid\""] {
                #expect(Self.value(key, in: manyStats) == Self.value(key, in: oneStats), "\(key)")
            }
        }
    }

    /// The number after `key` in a stats file.
    static func value(_ key: String, in stats: String) -> String? {
        guard let range = stats.range(of: key + ":") else { return nil }
        return String(stats[range.upperBound...].prefix { $0.isNumber })
    }

    @Test("a line over 64 MiB is rejected in its place, with lanes reading as with one reader")
    func overlongLine() throws {
        var text = #"{"id": 1}"# + "\n" + #"{"id": 2}"# + "\n"
        text += #"{"id": 3, "pad": ""# + String(repeating: "z", count: 64 << 20) + "\"}\n"
        text += #"{"id": 4}"# + "\n"
        let directory = try ToolRunner.directory(with: [
            "contexts/r.mappings": #"{ "@models": { "R": { "id": "Int" } }, "$R": { "@class": "R", "id": "id" } }"#,
            "big.ndjson": text,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        var outputs: [String] = []
        for workers in ["1", "2"] {
            let result = try ToolRunner.run(
                ["stream", "--context", "$R", "--workers", workers, "--rejects", "r\(workers).ndjson", "big.ndjson"],
                in: directory)
            #expect(result.status == 1)
            #expect(result.stdout == #"{"id":1}"# + "\n" + #"{"id":2}"# + "\n" + #"{"id":4}"# + "\n")
            let rejects = try String(
                contentsOf: directory.appendingPathComponent("r\(workers).ndjson"), encoding: .utf8)
            #expect(rejects.contains(#""line":3"#), "\(rejects.prefix(300))")
            #expect(rejects.contains("line too long"))
            #expect(result.stderr.contains("read 4, written 3, rejected 1"), "\(result.stderr)")
            outputs.append(result.stdout + rejects)
        }
        #expect(outputs[0] == outputs[1])
    }
}
