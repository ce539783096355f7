import Foundation

/// Maps a sequence of records on several cores and gives the results back in input order,
/// with the memory in flight bounded: what `mappings stream` runs, for a Swift host.
///
/// Each element is one record's JSON text on one line (a line of NDJSON). The records are
/// mapped in blocks on worker lanes through the record path (`RecordMapper`: the context's
/// fast plan, else the general engine), and `body` is called on the calling thread with each
/// result, in the order the lines came:
/// ```swift
/// let stream = MappingStream(records: RecordMapper(mapper: mapper, context: context), workers: 4)
/// try stream.map(lines) { record in
///     if record.outcome.kind == .withErrors { print(record.index, record.outcome.issues) }
///     else if let output = record.output { send(output) }
/// }
/// ```
public struct MappingStream: Sendable {
    /// How each record is mapped.
    public let records: RecordMapper
    /// How many lanes map records at once.
    public let workers: Int
    /// About how many bytes of records and results may be held between reading and `body`.
    public let maxInFlight: Int

    /// A stream over `records`, with `workers` lanes (default: one per core) and `maxInFlight`
    /// bytes held at most (default 64 MiB).
    public init(records: RecordMapper, workers: Int? = nil, maxInFlight: Int = 64 << 20) {
        self.records = records
        self.workers = max(1, workers ?? ProcessInfo.processInfo.activeProcessorCount)
        self.maxInFlight = max(1 << 16, maxInFlight)
    }

    /// Maps every line `lines` gives (reading ahead at most what `maxInFlight` allows) and calls
    /// `body` with each result, in input order. A blank line is no record (`body` is not called
    /// for it); a line that holds a line feed is not one line, and its result says so.
    public func map<Lines: Sequence>(_ lines: Lines, _ body: (MappedRecord) throws -> Void) rethrows
    where Lines.Element == [UInt8] {
        let pipeline = RecordPipeline(lanes: workers, outputLimit: maxInFlight / 2)
        defer { pipeline.finish() }
        let blocks = LineBlocks(lines.makeIterator(), blockSize: blockSize, records: records, writesErrors: true)
        var results = OrderedResults(blocks, pipeline: pipeline, limit: maxInFlight / 2)
        while true {
            switch results.next() {
            case .end:
                return
            case .unsplit(let index, _, _):
                try body(MappedRecord(index: index, output: nil, outcome: .lineHoldsLineFeed))
            case .piece(let piece, let firstIndex, let after):
                var mapped: [MappedRecord] = []
                Self.forEachRecord(in: piece, after: after, firstIndex: firstIndex) { index, output, outcome in
                    mapped.append(MappedRecord(index: index, output: output.map(Array.init), outcome: outcome))
                }
                for record in mapped { try body(record) }
            }
        }
    }

    /// How big a block of lines is: a fraction of what may be in flight, between 16 KiB and 1 MiB.
    var blockSize: Int { min(1 << 20, max(1 << 14, maxInFlight / (4 * (workers + 1)))) }

    /// Maps the NDJSON `text`, held whole, in blocks that share its storage (no line is
    /// copied), and calls `body` for each record in input order: its line's index, its output
    /// (a part of its block's output, not copied; `nil` when not written) and its outcome. What
    /// `mappings serve` maps an NDJSON body with. Blank lines are no records.
    package func map(
        text: [UInt8], _ body: (_ index: Int, _ output: ArraySlice<UInt8>?, _ outcome: RecordOutcome) -> Void
    ) {
        let pipeline = RecordPipeline(lanes: workers, outputLimit: maxInFlight / 2)
        defer { pipeline.finish() }
        let blocks = TextBlocks(text: text, blockSize: blockSize, records: records)
        var results = OrderedResults(blocks, pipeline: pipeline, limit: maxInFlight / 2)
        while case .piece(let piece, let firstIndex, let after) = results.next() {
            Self.forEachRecord(in: piece, after: after, firstIndex: firstIndex, body)
        }
    }

    /// Each record of `piece` after the `delivered` first lines: its index, its output in the
    /// piece's output (its line there), and its outcome.
    static func forEachRecord(
        in piece: BlockResult.State, after delivered: Int, firstIndex: Int,
        _ body: (_ index: Int, _ output: ArraySlice<UInt8>?, _ outcome: RecordOutcome) -> Void
    ) {
        var outputStart = 0
        piece.forEachRecord(after: delivered) { line, _, event in
            var output: ArraySlice<UInt8>?
            if event?.written ?? true {
                let lineEnd = piece.output[outputStart...].firstIndex(of: 0x0A) ?? piece.output.endIndex
                output = piece.output[outputStart..<lineEnd]
                outputStart = lineEnd + 1
            }
            body(firstIndex + line - 1, output, event?.outcome ?? RecordOutcome(kind: .clean))
        }
    }
}

/// One record's result from a `MappingStream`.
public struct MappedRecord: Sendable {
    /// The record's place in the input: the index of its line.
    public let index: Int
    /// Its output JSON, without a line end; `nil` when it is not JSON.
    public let output: [UInt8]?
    /// How it went: clean, with warnings, with errors (the output then holds what could be
    /// made), or not JSON.
    public let outcome: RecordOutcome
}
