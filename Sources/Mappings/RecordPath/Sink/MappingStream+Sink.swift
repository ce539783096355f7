import Foundation

extension MappingStream {
    /// Maps every line `lines` gives into `sink`, in input order, telling it after every block
    /// where the input then stands, and finishing it at the input's end; returns what it did.
    ///
    /// `start` is where `lines` begin in the input (`sink.committed`, or a database sink's
    /// stored position, when a stopped job starts again): positions count each line as its
    /// bytes and one line feed. A record that is not written — errors, not JSON — goes to the
    /// sink when it `takesRejects`; every record that is neither clean nor dropped by `@filter`
    /// (warnings too) is given to `reported`, in input order, without its output (the sink has
    /// what was written); its `index` is its line's index in `lines` (its line in the input:
    /// `start.line + index`). A block's rejects go to the sink once `reported` took them all.
    ///
    /// When the sink throws (its destination cannot be reached, or refused a batch), or
    /// `reported` does, mapping stops, the sink drops what it holds uncommitted (`discard`), and
    /// the error is thrown: the sink's `committed` is where a next run starts.
    @discardableResult
    public func map<Lines: Sequence>(
        _ lines: Lines, into sink: some RecordSink, from start: RecordPosition = RecordPosition(),
        reported: (MappedRecord) throws -> Void = { _ in }
    ) throws -> RecordSinkReport where Lines.Element == [UInt8] {
        let records = (sink as? any EncodingRecordSink).map { self.records.encoding($0.encoding) } ?? self.records
        let pipeline = RecordPipeline(lanes: workers, outputLimit: maxInFlight / 2)
        defer { pipeline.finish() }
        let blocks = LineBlocks(lines.makeIterator(), blockSize: blockSize, records: records, writesErrors: false)
        var results = OrderedResults(blocks, pipeline: pipeline, limit: maxInFlight / 2)
        var report = RecordSinkReport()
        var position = start
        /// A block's rejects, handed to the sink once `reported` took every record of the block.
        var rejects: [(index: Int, input: [UInt8], outcome: RecordOutcome)] = []
        func handOverRejects() {
            report.rejected += rejects.count
            if sink.takesRejects {
                for reject in rejects {
                    sink.reject(
                        source: start.source, line: start.line + reject.index, input: reject.input,
                        issues: reject.outcome.rejectIssues(context: records.context))
                }
            } else {
                for _ in rejects { sink.rejectedElsewhere() }
            }
            rejects.removeAll()
        }
        do {
            reading: while true {
                switch results.next() {
                case .end:
                    break reading
                case .unsplit(let index, let bytes, let offset):
                    let outcome = RecordOutcome.lineHoldsLineFeed
                    try reported(MappedRecord(index: index, output: nil, outcome: outcome))
                    report.records += 1
                    rejects.append((index, bytes, outcome))
                    handOverRejects()
                    position.line = start.line + index + 1
                    position.offset = start.offset.map { $0 + offset + bytes.count + 1 }
                    try sink.reached(position)
                case .piece(let piece, let firstIndex, _):
                    // The block's events in input order: filtered records counted, the others
                    // that are not clean reported, those not written kept as rejects.
                    for event in piece.events {
                        guard event.outcome.kind != .filtered else {
                            report.filtered += 1
                            continue
                        }
                        guard event.outcome.kind != .clean else { continue }
                        let index = firstIndex + event.line - 1
                        try reported(MappedRecord(index: index, output: nil, outcome: event.outcome))
                        if !event.written {
                            rejects.append((index, Array(piece.block.bytes[event.range]), event.outcome))
                        }
                    }
                    handOverRejects()
                    sink.add(piece.output[...])
                    report.records += piece.records
                    report.written += piece.records - piece.events.filter { !$0.written }.count
                    let block = piece.block
                    position.line = start.line + firstIndex + piece.lines
                    position.offset = start.offset.map { $0 + block.offset + (piece.nextLine - block.range.lowerBound) }
                    try sink.reached(position)
                }
            }
        } catch {
            results.abandon()
            sink.discard()
            throw error
        }
        position.line = start.line + results.source.index
        position.offset = start.offset.map { $0 + results.source.offset }
        try sink.finish(at: position)
        report.end = position
        return report
    }

}
