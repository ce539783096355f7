import Foundation

extension MappingStream {
    /// Maps every line `lines` gives into `sink`, in input order, telling it after every block
    /// where the input then stands, and finishing it at the input's end; returns what it did.
    ///
    /// `start` is where `lines` begin in the input (`sink.committed`, or a database sink's
    /// stored position, when a stopped job starts again): positions count each line as its
    /// bytes and one line feed. A record that is not written — errors, not JSON — goes to the
    /// sink when it `takesRejects`; every record that is not clean (warnings too) is given to
    /// `reported`, in input order, without its output (the sink has what was written); its
    /// `index` is its line's index in `lines` (its line in the input: `start.line + index`).
    ///
    /// When the sink throws (its destination cannot be reached, or refused a batch), mapping
    /// stops and the failure is thrown: the sink's `committed` is where a next run starts.
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
        /// A block in flight with the index of its first line, or a line that holds a line feed
        /// with its index and where it starts (from `start`).
        var pending: [(result: BlockResult?, firstIndex: Int, unsplit: [UInt8], offset: Int)] = []
        var held = 0
        func stop() {
            pipeline.stopLanes()
            for case let (result?, _, _, _) in pending { _ = result.abandon() }
        }
        func reject(index: Int, input: [UInt8], outcome: RecordOutcome) throws {
            report.rejected += 1
            if sink.takesRejects {
                sink.reject(
                    source: start.source, line: start.line + index, input: input,
                    issues: outcome.rejectIssues(context: records.context))
            }
            try reported(MappedRecord(index: index, output: nil, outcome: outcome))
        }
        do {
            while true {
                while !blocks.ended, held < maxInFlight / 2 {
                    blocks.read { gathered in
                        switch gathered {
                        case .block(let block, let firstIndex):
                            pending.append((pipeline.submit(block), firstIndex, [], block.offset))
                            held += block.bytes.count
                        case .unsplit(let line, let index, let offset):
                            pending.append((nil, index, line, offset))
                        }
                    }
                }
                guard let head = pending.first else {
                    if blocks.ended { break }
                    continue
                }
                guard let result = head.result else {
                    let failure = JSONParser.Failure(
                        message: "the line holds a line feed: one record per line", line: 1, column: 1)
                    report.records += 1
                    try reject(
                        index: head.firstIndex, input: head.unsplit,
                        outcome: RecordOutcome(kind: .invalid, failure: failure))
                    position.line = start.line + head.firstIndex + 1
                    position.offset = start.offset.map { $0 + head.offset + head.unsplit.count + 1 }
                    pending.removeFirst()
                    try sink.reached(position)
                    continue
                }
                pipeline.setHead(result)
                _ = pipeline.wait(for: result, timeout: blocks.ended || held >= maxInFlight / 2 ? 0.05 : 0)
                let piece = result.take()
                pipeline.took(piece.output.count)
                for event in piece.events where !event.written {
                    if event.outcome.kind == .filtered {
                        report.filtered += 1
                    } else {
                        let input = Array(piece.block.bytes[event.range])
                        try reject(index: head.firstIndex + event.line - 1, input: input, outcome: event.outcome)
                    }
                }
                for event in piece.events where event.written && event.outcome.kind != .clean {
                    try reported(
                        MappedRecord(index: head.firstIndex + event.line - 1, output: nil, outcome: event.outcome))
                }
                sink.add(piece.output[...])
                report.records += piece.records
                report.written += piece.records - piece.events.filter { !$0.written }.count
                let block = piece.block
                position.line = start.line + head.firstIndex + piece.lines
                position.offset = start.offset.map { $0 + block.offset + (piece.nextLine - block.range.lowerBound) }
                try sink.reached(position)
                guard piece.finished else { continue }
                if let tail = piece.tail {
                    pending[0] = (tail, head.firstIndex + piece.lines, [], 0)
                } else {
                    held -= piece.block.bytes.count
                    pending.removeFirst()
                }
            }
        } catch {
            stop()
            throw error
        }
        position.line = start.line + blocks.index
        position.offset = start.offset.map { $0 + blocks.offset }
        try sink.finish(at: position)
        report.end = position
        return report
    }

}
