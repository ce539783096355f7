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
        var blocks = LineBlocks(lines.makeIterator(), blockSize: blockSize, records: records, writesErrors: false)
        var report = RecordSinkReport()
        var position = start
        var pending: [PendingLines] = []
        var held = 0
        func stop() {
            pipeline.stopLanes()
            for case let result? in pending.map(\.result) { _ = result.abandon() }
        }
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
            while true {
                blocks.readAhead(into: &pending, held: &held, limit: maxInFlight / 2, pipeline: pipeline)
                guard let head = pending.first else {
                    if blocks.ended { break }
                    continue
                }
                guard let result = head.result else {
                    let failure = JSONParser.Failure(
                        message: "the line holds a line feed: one record per line", line: 1, column: 1)
                    let outcome = RecordOutcome(kind: .invalid, failure: failure)
                    try reported(MappedRecord(index: head.firstIndex, output: nil, outcome: outcome))
                    report.records += 1
                    rejects.append((head.firstIndex, head.unsplit, outcome))
                    handOverRejects()
                    position.line = start.line + head.firstIndex + 1
                    position.offset = start.offset.map { $0 + head.offset + head.unsplit.count + 1 }
                    held -= head.unsplit.count + 1
                    pending.removeFirst()
                    try sink.reached(position)
                    continue
                }
                pipeline.setHead(result)
                _ = pipeline.wait(for: result, timeout: blocks.ended || held >= maxInFlight / 2 ? 0.05 : 0)
                let piece = result.take()
                pipeline.took(piece.output.count)
                // The block's events in input order: filtered records counted, the others that
                // are not clean reported, those not written kept as rejects.
                for event in piece.events {
                    guard event.outcome.kind != .filtered else {
                        report.filtered += 1
                        continue
                    }
                    guard event.outcome.kind != .clean else { continue }
                    let index = head.firstIndex + event.line - 1
                    try reported(MappedRecord(index: index, output: nil, outcome: event.outcome))
                    if !event.written { rejects.append((index, Array(piece.block.bytes[event.range]), event.outcome)) }
                }
                handOverRejects()
                sink.add(piece.output[...])
                report.records += piece.records
                report.written += piece.records - piece.events.filter { !$0.written }.count
                let block = piece.block
                position.line = start.line + head.firstIndex + piece.lines
                position.offset = start.offset.map { $0 + block.offset + (piece.nextLine - block.range.lowerBound) }
                try sink.reached(position)
                guard piece.finished else { continue }
                if let tail = piece.tail {
                    pending[0] = PendingLines(result: tail, firstIndex: head.firstIndex + piece.lines)
                } else {
                    held -= piece.block.bytes.count
                    pending.removeFirst()
                }
            }
        } catch {
            stop()
            sink.discard()
            throw error
        }
        position.line = start.line + blocks.index
        position.offset = start.offset.map { $0 + blocks.offset }
        try sink.finish(at: position)
        report.end = position
        return report
    }

}
