import Foundation
import Mappings

/// Stopping before the end of the input: what was read and not written is counted as not
/// processed, and the first such line is where a resumed run starts.
extension StreamRun {
    /// A part of a block not written: its lines from `start` on, and the rest of its chain.
    private struct Remainder {
        var block: RecordBlock
        var start: Int
        var tail: BlockResult?
    }

    /// After `--on-issue fail` stopped at a record (`position` is its line): the rest of its
    /// block, then everything pending, is not processed; the line after it is where to resume.
    mutating func notProcessed(
        from stopped: (state: BlockResult.State, next: Int), then rest: [Pending], at position: Position,
        reader: BlockReader
    ) {
        var lines = position.linesBefore
        leave(
            Remainder(block: stopped.state.block, start: stopped.next, tail: stopped.state.tail), file: position.file,
            after: &lines)
        for item in rest { leave(item, file: position.file, after: &lines) }
        noteResumeFromReader(reader, file: position.file, after: lines)
    }

    /// After a stop signal, when nothing more is pending or the grace period ended: what lanes
    /// finished is written in order; a record a lane is still mapping is rejected as
    /// interrupted; from the first line not mapped on, everything is not processed.
    mutating func interrupt(_ pending: [Pending], at position: Position, reader: BlockReader) {
        var lines = position.linesBefore
        var queue = pending[...]
        var writing = true
        // Lines of the head block written already (later blocks have none).
        var written = position.linesWritten
        while let item = queue.popFirst() {
            guard writing, case .block(let result) = item else {
                if writing, case .tooLong(let head, _) = item {
                    lines += 1
                    rejectTooLong(head, at: Position(file: position.file, linesBefore: lines))
                    continue
                }
                leave(item, file: position.file, after: &lines)
                continue
            }
            let state = result.abandon()
            let blockStart = lines
            _ = write(state, at: Position(file: position.file, linesBefore: blockStart, linesWritten: written))
            written = 0
            lines = blockStart + state.lines
            if state.finished {
                if let tail = state.tail { queue.insert(.block(tail), at: queue.startIndex) }
                continue
            }
            var start = state.nextLine
            if let current = state.current {
                lines = blockStart + current.line
                counts.read += 1
                counts.interrupted += 1
                stats.count(issue: "interrupted")
                let message =
                    "the stream was stopped (\(stopReason.map { "\($0)" } ?? "by a signal")) while this record was being mapped"
                reject(
                    state.block, current.range, at: position, line: lines,
                    issues: [Self.issue("interrupted", message)])
                start = state.block.start(after: current.range)
            }
            let remainder = Remainder(block: state.block, start: start, tail: state.tail)
            if start < state.block.range.upperBound {
                writing = false
            } else if let tail = state.tail {
                queue.insert(.block(tail), at: queue.startIndex)
                continue
            }
            if !writing { leave(remainder, file: position.file, after: &lines) }
        }
        noteResumeFromReader(reader, file: position.file, after: lines)
    }

    /// Counts a pending item as read and not processed, noting its first line as where to
    /// resume when no earlier line was.
    private mutating func leave(_ item: Pending, file: String?, after lines: inout Int) {
        switch item {
        case .tooLong(_, let offset):
            noteResume(Resume(file: file, line: lines + 1, offset: offset))
            lines += 1
            counts.read += 1
            counts.unprocessed += 1
        case .block(let result):
            let state = result.abandon()
            leave(
                Remainder(block: state.block, start: state.block.range.lowerBound, tail: state.tail), file: file,
                after: &lines)
        }
    }

    /// Counts a block's lines from `start` on, and those of the rest of its chain, as read and
    /// not processed.
    private mutating func leave(_ remainder: Remainder, file: String?, after lines: inout Int) {
        var part: Remainder? = remainder
        while let current = part {
            let block = current.block
            if current.start < block.range.upperBound {
                noteResume(
                    Resume(file: file, line: lines + 1, offset: block.offset + (current.start - block.range.lowerBound))
                )
            }
            lines += block.lineCount(from: current.start)
            let records = block.recordCount(from: current.start)
            counts.read += records
            counts.unprocessed += records
            part = current.tail.map { tail in
                let state = tail.abandon()
                return Remainder(block: state.block, start: state.block.range.lowerBound, tail: state.tail)
            }
        }
    }

    /// When nothing read is left: the next line of the input, unless the input has ended.
    private mutating func noteResumeFromReader(_ reader: BlockReader, file: String?, after lines: Int) {
        guard !reader.reachedEnd || !reader.pending.isEmpty else { return }
        noteResume(Resume(file: file, line: lines + 1, offset: reader.nextOffset))
    }

    /// Keeps `resume` as where to start again, unless an earlier place already is.
    mutating func noteResume(_ place: Resume) {
        if resume == nil { resume = place }
    }

    /// Notes where a run that stopped between inputs starts again: the next one, from its top.
    mutating func noteResume(atStartOf file: String?) {
        noteResume(Resume(file: file, line: 1, offset: 0))
    }
}
