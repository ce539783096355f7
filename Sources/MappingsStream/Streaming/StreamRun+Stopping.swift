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
    /// block (`stopped`: its state, and where the line after the record starts; `nil` when it
    /// was a line over the limit, between blocks), then everything pending, is not processed;
    /// the line after it is where to resume.
    mutating func notProcessed(
        from stopped: (state: BlockResult.State, next: Int)?, then rest: [Pending], at position: Position,
        reader: BlockReader
    ) {
        var lines = position.linesBefore
        var read = true
        if let stopped {
            read = leave(
                Remainder(block: stopped.state.block, start: stopped.next, tail: stopped.state.tail),
                file: position.file, after: &lines, reader: reader)
        }
        for item in rest where read { read = leave(item, file: position.file, after: &lines, reader: reader) }
        if read { noteResumeFromReader(reader, file: position.file, after: lines) }
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
        // Whether the items so far were read: a block its lane had not read when the stream
        // stopped is where the input was left (what follows it is not read either).
        var read = true
        while read, let item = queue.popFirst() {
            guard writing, case .block(let result, _) = item else {
                var place = Position(file: position.file, linesBefore: lines)
                if writing, rejectUnmapped(item, at: &place) {
                    lines = place.linesBefore
                    continue
                }
                read = leave(item, file: position.file, after: &lines, reader: reader)
                continue
            }
            let state = result.abandon()
            guard state.loaded, state.readFailure == nil else {
                read = leaveUnread(state.block, file: position.file, after: lines, reader: reader)
                continue
            }
            let blockStart = lines
            _ = write(state, at: Position(file: position.file, linesBefore: blockStart, linesWritten: written))
            written = 0
            lines = blockStart + state.lines
            if state.finished {
                if let tail = state.tail {
                    queue.insert(.block(tail, held: 0), at: queue.startIndex)
                } else if let overlong = state.block.overlong {
                    lines += 1
                    rejectTooLong(overlong.head, at: Position(file: position.file, linesBefore: lines))
                }
                continue
            }
            var start = state.nextLine
            if let current = state.current {
                lines = blockStart + current.line
                counts.read += 1
                counts.interrupted += 1
                stats.count(issue: MappingIssue.Kind.interrupted.rawValue)
                let message =
                    "the stream was stopped (\(stopReason.map { "\($0)" } ?? "by a signal")) while this record was being mapped"
                let issue = MappingIssue(record: .interrupted, message: message, context: records.context)
                reject(state.block, current.range, at: position, line: lines, issues: [issue])
                start = state.block.start(after: current.range)
            }
            let remainder = Remainder(block: state.block, start: start, tail: state.tail)
            if start < state.block.range.upperBound {
                writing = false
            } else if let tail = state.tail {
                queue.insert(.block(tail, held: 0), at: queue.startIndex)
                continue
            }
            if !writing { read = leave(remainder, file: position.file, after: &lines, reader: reader) }
        }
        if read { noteResumeFromReader(reader, file: position.file, after: lines) }
    }

    /// Counts a pending item as read and not processed, noting its first line as where to
    /// resume when no earlier line was; whether it was read (a block its lane had not read is
    /// where the input was left).
    private mutating func leave(_ item: Pending, file: String?, after lines: inout Int, reader: BlockReader) -> Bool {
        switch item {
        case .tooLong(_, let offset):
            noteResume(Resume(file: file, line: lines + 1, offset: offset))
            lines += 1
            counts.read += 1
            counts.unprocessed += 1
            return true
        case .unreadable(let reject):
            noteResume(Resume(file: file, line: lines + 1, offset: nil))
            lines += reject.lines
            counts.read += 1
            counts.unprocessed += 1
            return true
        case .block(let result, _):
            let state = result.abandon()
            guard state.loaded, state.readFailure == nil else {
                return leaveUnread(state.block, file: file, after: lines, reader: reader)
            }
            return leave(
                Remainder(block: state.block, start: state.block.range.lowerBound, tail: state.tail), file: file,
                after: &lines, reader: reader)
        }
    }

    /// Counts a block's lines from `start` on, and those of the rest of its chain, as read and
    /// not processed (and the line over the limit its lane skipped after them); whether the
    /// chain was read.
    private mutating func leave(
        _ remainder: Remainder, file: String?, after lines: inout Int, reader: BlockReader
    ) -> Bool {
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
            guard let tail = current.tail else {
                if let overlong = block.overlong {
                    noteResume(Resume(file: file, line: lines + 1, offset: overlong.offset))
                    lines += 1
                    counts.read += 1
                    counts.unprocessed += 1
                }
                return true
            }
            let state = tail.abandon()
            guard state.loaded, state.readFailure == nil else {
                return leaveUnread(state.block, file: file, after: lines, reader: reader)
            }
            part = Remainder(block: state.block, start: state.block.range.lowerBound, tail: state.tail)
        }
        return true
    }

    /// A block its lane had not read when the stream stopped: the input was left there, at the
    /// first line that starts in its range (none: the input has no more). Returns false.
    private mutating func leaveUnread(_ placeholder: RecordBlock, file: String?, after lines: Int, reader: BlockReader)
        -> Bool
    {
        if let offset = reader.lineStart(atOrAfter: placeholder.offset) {
            noteResume(Resume(file: file, line: lines + 1, offset: offset))
        }
        return false
    }

    /// When nothing read is left: the next line of the input, unless the input has ended.
    private mutating func noteResumeFromReader(_ reader: BlockReader, file: String?, after lines: Int) {
        guard let offset = reader.nextLineOffset else { return }
        noteResume(Resume(file: file, line: lines + 1, offset: offset))
    }

    /// Keeps `resume` as where to start again, unless an earlier place already is.
    mutating func noteResume(_ place: Resume) {
        guard resume == nil else { return }
        resume = place
        // A decoded input's offsets are those of its JSON lines: its place is its line alone.
        if decodedInput { resume?.offset = nil }
    }

    /// Notes where a run that stopped between inputs starts again: the next one, from its top.
    package mutating func noteResume(atStartOf file: String?) {
        noteResume(Resume(file: file, line: 1, offset: 0))
    }
}
