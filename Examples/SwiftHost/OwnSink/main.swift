// A host's own source and sink: the pipeline's tweets read from a file of lines (the source:
// the lines after where the job stopped) and written into an NDJSON file whose committed
// position is kept beside it (the sink), as a job that goes on where it stopped.
//
//     swift run --package-path Examples/SwiftHost example-own-sink out.ndjson     (from the repository's root)
import Foundation
import Mappings
import MappingsLua

/// Records appended to a file, committed with the input's position in `FILE.position` (written
/// to a new file and renamed over the old one): what was added after the last commit is cut off
/// when the next run opens it, so no record is written twice.
final class FileSink: RecordSink {
    let path: String
    private let file: FileHandle
    private var held: [UInt8] = []
    private(set) var committed: RecordPosition?
    private(set) var committedRecords = 0
    private var heldRecords = 0
    let takesRejects = false

    init(path: String) throws {
        self.path = path
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw RecordSinkFailure("cannot create \(path)", unavailable: true)
            }
        }
        file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        // The last commit: the input's position and the file's length then.
        var length: UInt64 = 0
        if let saved = try? String(contentsOfFile: path + ".position", encoding: .utf8) {
            let fields = saved.split(separator: " ").compactMap { Int($0) }
            if fields.count == 3 {
                committed = RecordPosition(source: nil, line: fields[0], offset: fields[1])
                length = UInt64(fields[2])
            }
        }
        try file.truncate(atOffset: length)
        try file.seekToEnd()
    }

    func add(_ records: ArraySlice<UInt8>) {
        held += records
        heldRecords += records.count { $0 == 0x0A }
    }

    func reject(source: String?, line: Int, input: [UInt8], issues: [MappingIssue]) {}

    func reached(_ position: RecordPosition) throws(RecordSinkFailure) {
        try commit(at: position)
    }

    func finish(at position: RecordPosition) throws(RecordSinkFailure) {
        try commit(at: position)
    }

    func discard() {
        held.removeAll()
        heldRecords = 0
    }

    /// Writes what is held, syncs it, then records where the input stands.
    private func commit(at position: RecordPosition) throws(RecordSinkFailure) {
        do {
            try file.write(contentsOf: held)
            try file.synchronize()
            let text = "\(position.line) \(position.offset ?? 0) \(try file.offset())"
            try text.write(toFile: path + ".position", atomically: true, encoding: .utf8)
        } catch {
            throw RecordSinkFailure("cannot write \(path): \(error)", unavailable: true)
        }
        committed = position
        committedRecords += heldRecords
        discard()
    }
}

/// The source: the input's lines from byte `offset` on, one at a time.
struct Lines: Sequence, IteratorProtocol {
    private var rest: ArraySlice<UInt8>

    init(path: String, from offset: Int) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        rest = bytes[Swift.min(offset, bytes.count)...]
    }

    mutating func next() -> [UInt8]? {
        guard !rest.isEmpty else { return nil }
        let end = rest.firstIndex(of: 0x0A) ?? rest.endIndex
        defer { rest = rest[Swift.min(end + 1, rest.endIndex)...] }
        return Array(rest[..<end])
    }
}

let output = CommandLine.arguments.dropFirst().first ?? "out.ndjson"
let input = "Examples/pipeline/tweets.ndjson"
var transformers = TransformerRegistry()
transformers.add(LuaScripts(directory: "scripts"))
let mapper = Mapper(catalog: try Catalog.load(["contexts"], transformers: transformers))
let context = try mapper.context("$TweetModel")

let sink = try FileSink(path: output)
let start = sink.committed.map { RecordPosition(source: input, line: $0.line, offset: $0.offset) }
    ?? RecordPosition(source: input)
print("the job starts at \(start)")
let stream = MappingStream(records: RecordMapper(mapper: mapper, context: context), workers: 2)
let report = try stream.map(try Lines(path: input, from: start.offset ?? 0), into: sink, from: start) { record in
    let why = record.outcome.issues.first.map { "\($0.kind.rawValue) at \($0.path)" } ?? "not JSON"
    print("line \(start.line + record.index): \(why)")
}
print("read \(report.records), written \(report.written), rejected \(report.rejected); the job stands at \(report.end)")
