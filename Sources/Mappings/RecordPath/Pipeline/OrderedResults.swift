import MappingsJSON

/// The one ordered reader of a pipeline's results: each block's records once, in input order,
/// as the lanes publish them (a block at the head of the line streams out while its lane goes
/// on; a block a lane cut in two comes part by part), with the memory in flight bounded. What a
/// host's `MappingStream` (lines, a sink, `serve`'s NDJSON body) reads its results with.
package struct OrderedResults<Source: BlockSource> {
    /// What comes next, in input order.
    package enum Next {
        /// A line that holds a line feed: no record (its index in the input, its bytes, where it starts).
        case unsplit(index: Int, bytes: [UInt8], offset: Int)
        /// What a lane published of the head block since the last take: `firstIndex` is the
        /// index of the block's first line, `after` how many of its lines came before.
        case piece(BlockResult.State, firstIndex: Int, after: Int)
        /// The input ended and every result was read.
        case end
    }

    package let pipeline: RecordPipeline
    package private(set) var source: Source
    /// About how many bytes of input may be held between reading and the results' reader.
    private let limit: Int
    private var pending: [PendingLines] = []
    private var held = 0
    /// Lines of the head block already read.
    private var delivered = 0

    package init(_ source: Source, pipeline: RecordPipeline, limit: Int) {
        self.source = source
        self.pipeline = pipeline
        self.limit = limit
    }

    /// The next results, in input order: waits for the head block's lane to publish something
    /// (a while, when the input has ended or the limit is reached; not at all otherwise, so that
    /// reading goes on meanwhile).
    package mutating func next() -> Next {
        while true {
            source.readAhead(into: &pending, held: &held, limit: limit, pipeline: pipeline)
            guard let head = pending.first else {
                if source.ended { return .end }
                continue
            }
            guard let result = head.result else {
                held -= head.unsplit.count + 1
                pending.removeFirst()
                return .unsplit(index: head.firstIndex, bytes: head.unsplit, offset: head.offset)
            }
            pipeline.setHead(result)
            _ = pipeline.wait(for: result, timeout: source.ended || held >= limit ? 0.05 : 0)
            let piece = result.take()
            pipeline.took(piece.output.count)
            let after = delivered
            delivered = piece.lines
            if piece.finished {
                delivered = 0
                // A block a lane cut in two finishes part by part: each part frees its own bytes.
                held -= piece.block.range.count
                if let tail = piece.tail {
                    pending[0] = PendingLines(result: tail, firstIndex: head.firstIndex + piece.lines)
                } else {
                    pending.removeFirst()
                }
            }
            return .piece(piece, firstIndex: head.firstIndex, after: after)
        }
    }

    /// Stops the lanes and gives up on every block still pending (a reader that stops early).
    package mutating func abandon() {
        pipeline.stopLanes()
        for case let result? in pending.map(\.result) { _ = result.abandon() }
        pending.removeAll()
    }
}

extension BlockResult.State {
    /// Each record of the piece after its `delivered` first lines, in order: its line within the
    /// block (from 1), where the line is in the block's bytes, and its event when it was more
    /// than an output line (`nil`: written cleanly). Blank lines are no records.
    package func forEachRecord(
        after delivered: Int, _ body: (_ line: Int, _ range: Range<Int>, _ event: RecordEvent?) -> Void
    ) {
        var events = self.events[...]
        var lineNumber = 0
        block.forEachLine { line, _ in
            lineNumber += 1
            guard lineNumber <= lines else { return false }
            guard lineNumber > delivered, !block.isBlank(line) else { return true }
            if let event = events.first, event.line == lineNumber {
                events.removeFirst()
                body(lineNumber, line, event)
            } else {
                body(lineNumber, line, nil)
            }
            return true
        }
    }
}

extension RecordOutcome {
    /// The outcome of a line that holds a line feed: not one record, not JSON.
    package static var lineHoldsLineFeed: RecordOutcome {
        RecordOutcome(
            kind: .invalid,
            failure: JSONParser.Failure(message: "the line holds a line feed: one record per line", line: 1, column: 1))
    }
}
