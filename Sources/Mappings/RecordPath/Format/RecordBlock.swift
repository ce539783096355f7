import Foundation

/// A block of NDJSON: whole lines of one input, mapped by one lane, its results written in
/// input order. Lines end with `\n` (a `\r` before it is dropped); the last line may lack its
/// end (the end of the input). Blank lines are no records.
package struct RecordBlock: Sendable {
    /// The bytes the block's lines are in (shared: a block split in two keeps one storage).
    package let bytes: [UInt8]
    /// The block's part of `bytes`: whole lines.
    package let range: Range<Int>
    /// Where `bytes[range.lowerBound]` is in its input, in bytes (for the place to resume from).
    package let offset: Int
    /// How the block's records are mapped (the version serving when the block was read).
    package let records: RecordMapper
    /// Whether a record with errors is written anyway (`--on-issue emit`), not only reported.
    package let writesErrors: Bool
    /// A line over the limit that follows the block's lines, which the lane that read the
    /// block skipped: rejected after them. Only the last part of a block that is cut keeps it.
    package private(set) var overlong: OverlongLine?
    /// Where every line feed of `bytes` is, in order, when whoever made the block knew (it put
    /// them there): lines are then found without looking for them. Shared by the block's parts.
    package let lineEnds: [Int]?

    package init(
        bytes: [UInt8], offset: Int, records: RecordMapper, writesErrors: Bool, overlong: OverlongLine? = nil,
        lineEnds: [Int]? = nil
    ) {
        self.init(
            bytes: bytes, range: bytes.indices, offset: offset, records: records, writesErrors: writesErrors,
            overlong: overlong, lineEnds: lineEnds)
    }

    /// The lines of `bytes[range]`, which starts `offset` bytes into the input.
    package init(
        bytes: [UInt8], range: Range<Int>, offset: Int, records: RecordMapper, writesErrors: Bool,
        overlong: OverlongLine? = nil, lineEnds: [Int]? = nil
    ) {
        self.bytes = bytes
        self.range = range
        self.offset = offset
        self.records = records
        self.writesErrors = writesErrors
        self.overlong = overlong
        self.lineEnds = lineEnds
    }

    /// The lines of `range` (whole lines of this block) as a block of their own.
    package func part(_ range: Range<Int>) -> RecordBlock {
        RecordBlock(
            bytes: bytes, range: range, offset: offset + (range.lowerBound - self.range.lowerBound), records: records,
            writesErrors: writesErrors, overlong: range.upperBound == self.range.upperBound ? overlong : nil,
            lineEnds: lineEnds)
    }

    /// The block cut in two at the line end nearest its middle (the second part starts after
    /// it); `nil` when it holds a single line. No byte is copied.
    package func split() -> (RecordBlock, RecordBlock)? {
        guard range.count > 1 else { return nil }
        let middle = range.lowerBound + range.count / 2
        let cut: Int? = bytes.withUnsafeBufferPointer { buffer in
            // The first line end at or after the middle, else the last one before it.
            if let found = memchr(buffer.baseAddress! + middle, 0x0A, range.upperBound - middle) {
                let at = buffer.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                if at < range.upperBound { return at }
            }
            var back = middle - 1
            while back >= range.lowerBound, buffer[back] != 0x0A { back -= 1 }
            return back >= range.lowerBound ? back + 1 : nil
        }
        guard let cut, cut > range.lowerBound, cut < range.upperBound else { return nil }
        return (part(range.lowerBound..<cut), part(cut..<range.upperBound))
    }

    /// Calls `body` with each line's range in `bytes` (its end without `\r`) and where the
    /// next line starts, in order, from `start` (default: the block's start) as long as it
    /// returns true; returns how many lines it gave.
    @discardableResult
    package func forEachLine(from start: Int? = nil, _ body: (_ line: Range<Int>, _ next: Int) -> Bool) -> Int {
        let lines = (start ?? range.lowerBound)..<range.upperBound
        guard let lineEnds else { return Self.forEachLine(in: bytes, range: lines, body) }
        // The line feeds are known: the first at or after the start, by halving, then in order.
        var low = 0
        var high = lineEnds.count
        while low < high {
            let middle = (low + high) / 2
            if lineEnds[middle] < lines.lowerBound { low = middle + 1 } else { high = middle }
        }
        return bytes.withUnsafeBufferPointer { buffer in
            var position = lines.lowerBound
            var index = low
            var count = 0
            while position < lines.upperBound {
                var lineEnd = lines.upperBound
                var next = lines.upperBound
                if index < lineEnds.count, lineEnds[index] < lines.upperBound {
                    lineEnd = lineEnds[index]
                    next = lineEnd + 1
                    index += 1
                }
                if lineEnd > position, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                count += 1
                guard body(position..<lineEnd, next) else { return count }
                position = next
            }
            return count
        }
    }

    /// The lines of `bytes[range]`, as `forEachLine(from:_:)` gives them; lines are found with
    /// `memchr`, the one pass over the bytes.
    @discardableResult
    package static func forEachLine(
        in bytes: [UInt8], range: Range<Int>, _ body: (_ line: Range<Int>, _ next: Int) -> Bool
    ) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var position = range.lowerBound
            let end = range.upperBound
            var count = 0
            while position < end {
                var lineEnd = end
                var next = end
                if let found = memchr(buffer.baseAddress! + position, 0x0A, end - position) {
                    lineEnd = buffer.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    next = lineEnd + 1
                }
                if lineEnd > position, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                count += 1
                guard body(position..<lineEnd, next) else { return count }
                position = next
            }
            return count
        }
    }

    /// Where the line after `line` (a line of this block) starts: the block's end after its last.
    package func start(after line: Range<Int>) -> Int {
        var next = range.upperBound
        forEachLine(from: line.lowerBound) { _, after in
            next = after
            return false
        }
        return next
    }

    /// Whether a line holds nothing but spaces and tabs (no record).
    package func isBlank(_ line: Range<Int>) -> Bool {
        Self.isBlank(bytes[line])
    }

    /// Whether `line`'s bytes are nothing but spaces and tabs: the one rule for a line that is
    /// no record, for blocks and for lines read where their caller holds them.
    package static func isBlank(_ line: some Collection<UInt8>) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }

    /// How many records (lines that are not blank) the block holds from byte `start` on.
    package func recordCount(from start: Int? = nil) -> Int {
        var records = 0
        forEachLine(from: start) { line, _ in
            if !isBlank(line) { records += 1 }
            return true
        }
        return records
    }

    /// How many lines the block holds from byte `start` on.
    package func lineCount(from start: Int? = nil) -> Int {
        forEachLine(from: start) { _, _ in true }
    }
}

/// A line longer than a reader takes, skipped: its first bytes, and where it starts in its input.
package struct OverlongLine: Sendable {
    package let head: [UInt8]
    package let offset: Int

    package init(head: [UInt8], offset: Int) {
        self.head = head
        self.offset = offset
    }
}

/// What one record of a block did that is more than its output line: its issues (rejected,
/// or written with warnings or errors), a line that is not JSON, or lines its scripts logged.
package struct RecordEvent: Sendable {
    /// The record's line within its block, from 1.
    package let line: Int
    /// Where the line starts and ends in the block's bytes.
    package let range: Range<Int>
    /// How long the block's output was before this record's (its output follows, when written).
    package let outputStart: Int
    /// Whether the record's output is in the block's output.
    package let written: Bool
    package let outcome: RecordOutcome
    /// What the record's scripts logged while it mapped.
    package let log: [ScriptLogEntry]
}

/// One line a script logged: where (`scripts/Geo.lua:12`) and what, without the record it
/// belonged to, which the writer adds in input order.
public struct ScriptLogEntry: Sendable, Hashable {
    public let place: String
    public let message: String

    public init(place: String, message: String) {
        self.place = place
        self.message = message
    }
}
