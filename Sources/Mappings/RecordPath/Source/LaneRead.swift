import Foundation

/// A block of a regular file that the lane mapping it reads itself (`pread`), so that with
/// `--workers N` no one thread reads for every lane. The reader hands out byte ranges of the
/// file, one after the other, without reading them; the block of the range `start..<end` is
/// the lines that *start* in it — a line starts at the file's first byte read or after a line
/// feed — each read to its end, past `end` when it runs on. Every line thus belongs to exactly
/// one range whatever the ranges are, and the lanes agree on the cuts without talking.
package struct LaneRead: Sendable {
    package let descriptor: Int32
    /// The range of the file whose lines the block holds.
    package let range: Range<Int>
    /// Whether `range.lowerBound` is known to start a line (where reading started).
    package let startsLine: Bool
    package let records: RecordMapper
    package let writesErrors: Bool
    /// The longest line taken; a longer one ends the block, and is reported (`overlong`).
    package let maximumLine: Int
    /// The longest line the tool takes (`LineReader.maximumLine`).
    package static let longestLine = LineReader.maximumLine

    package init(
        descriptor: Int32, range: Range<Int>, startsLine: Bool, records: RecordMapper, writesErrors: Bool,
        maximumLine: Int = LaneRead.longestLine
    ) {
        assert(range.count <= maximumLine, "a range longer than a line may be: its lines are not measured")
        self.descriptor = descriptor
        self.range = range
        self.startsLine = startsLine
        self.records = records
        self.writesErrors = writesErrors
        self.maximumLine = maximumLine
    }

    /// The block: its lines, read.
    package func read() -> Result<RecordBlock, BlockResult.ReadFailure> {
        // Whether a line starts at `range.lowerBound` is the byte before it: read it too.
        let from = startsLine ? range.lowerBound : range.lowerBound - 1
        var bytes: [UInt8] = []
        do {
            // The range and some more: most blocks' last line ends within 64 KiB of the range.
            guard try fill(&bytes, from: from, upTo: range.upperBound - from + (1 << 16)) else {
                return .success(block(bytes, lines: 0..<0))
            }
            // The first line starting in the range: after the first line feed from the byte before it.
            var first = 0
            if !startsLine {
                guard let feed = Self.lineFeed(in: bytes, from: 0, before: min(bytes.count, range.count)) else {
                    // No line starts in the range: it lies inside a line that started before it.
                    return .success(block([], lines: 0..<0))
                }
                first = feed + 1
            }
            // The block ends at the end of the line that holds the range's last byte.
            let last = range.upperBound - 1 - from
            guard first <= last else { return .success(block([], lines: 0..<0)) }
            var searched = last
            // Where the line that holds the range's last byte starts: the only line of the
            // block that may be longer than the range.
            func lastLineStart() -> Int {
                (Self.lastLineFeed(in: bytes, from: first, before: last).map { $0 + 1 }) ?? first
            }
            // The line from `lineStart` to `end` (its line feed, else what is read of it).
            func overlong(at lineStart: Int, end: Int) -> Result<RecordBlock, BlockResult.ReadFailure> {
                let head = Array(bytes[lineStart..<min(end, lineStart + 200)])
                return .success(
                    block(bytes, lines: first..<lineStart, overlong: OverlongLine(head: head, offset: from + lineStart))
                )
            }
            while true {
                if let feed = Self.lineFeed(in: bytes, from: searched, before: bytes.count) {
                    if feed - first > maximumLine {
                        let lineStart = lastLineStart()
                        if feed - lineStart > maximumLine { return overlong(at: lineStart, end: feed) }
                    }
                    return .success(block(bytes, lines: first..<(feed + 1)))
                }
                // The last line goes on past what is read: over the limit, it is skipped.
                let lineStart = lastLineStart()
                if bytes.count - lineStart > maximumLine { return overlong(at: lineStart, end: bytes.count) }
                searched = bytes.count
                let more = min(maximumLine + 1 - (bytes.count - lineStart), max(1 << 16, bytes.count))
                guard try fill(&bytes, from: from, upTo: bytes.count + more) else {
                    // The end of the file ends the last line.
                    return .success(block(bytes, lines: first..<bytes.count))
                }
            }
        } catch let failure as BlockResult.ReadFailure {
            return .failure(failure)
        } catch {
            return .failure(BlockResult.ReadFailure(errno: EIO))
        }
    }

    /// The block of `bytes[lines]`, `bytes` read from `from` on (or from the range's start).
    private func block(_ bytes: [UInt8], lines: Range<Int>, overlong: OverlongLine? = nil) -> RecordBlock {
        let from = startsLine ? range.lowerBound : range.lowerBound - 1
        guard !lines.isEmpty else {
            return RecordBlock(
                bytes: [], offset: range.lowerBound, records: records, writesErrors: writesErrors, overlong: overlong)
        }
        return RecordBlock(
            bytes: bytes, range: lines, offset: from + lines.lowerBound, records: records, writesErrors: writesErrors,
            overlong: overlong)
    }

    /// Reads the file from `from + bytes.count` on into `bytes` until it holds `count` bytes or
    /// the file ends; whether it read anything.
    private func fill(_ bytes: inout [UInt8], from: Int, upTo count: Int) throws -> Bool {
        let had = bytes.count
        guard count > had else { return false }
        var failed: Int32?
        let grown = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            bytes.withUnsafeBufferPointer { old in
                if let base = old.baseAddress { buffer.baseAddress!.initialize(from: base, count: old.count) }
            }
            initialized = had
            while initialized < count {
                let got = pread(
                    descriptor, buffer.baseAddress! + initialized, count - initialized, off_t(from + initialized))
                if got == 0 { break }
                if got < 0 {
                    if errno == EINTR { continue }
                    failed = errno
                    break
                }
                initialized += got
            }
        }
        if let failed { throw BlockResult.ReadFailure(errno: failed) }
        bytes = grown
        return bytes.count > had
    }

    /// The first line feed in `bytes[from..<before]`.
    package static func lineFeed(in bytes: [UInt8], from: Int, before end: Int) -> Int? {
        guard from < end else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            guard let found = memchr(buffer.baseAddress! + from, 0x0A, end - from) else { return nil }
            return buffer.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The last line feed in `bytes[from..<before]`.
    package static func lastLineFeed(in bytes: [UInt8], from: Int, before end: Int) -> Int? {
        guard from < end else { return nil }
        return bytes[from..<end].lastIndex(of: 0x0A)
    }

    /// Where the file's last line feed before `size` ends (the byte after it), not before
    /// `floor` (`floor` when none is after it): the end of the file's ended lines. `nil` when a
    /// read fails (`errno` says why).
    package static func lastLineEnd(of descriptor: Int32, before size: Int, notBefore floor: Int) -> Int? {
        var end = size
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while end > floor {
            let from = max(floor, end - chunk.count)
            let got = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, end - from, off_t(from)) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return nil }
            // A file cut shorter meanwhile: what is read is all there is.
            if let feed = lastLineFeed(in: chunk, from: 0, before: got) { return from + feed + 1 }
            guard got == end - from else { return floor }
            end = from
        }
        return floor
    }

    /// Where the first line that starts at `offset` or after it starts in the file (`offset`
    /// itself when `startsLine`): where a run stopped before reading the range resumes. `nil`
    /// when no line starts there before the end of the file.
    package static func lineStart(of descriptor: Int32, atOrAfter offset: Int, startsLine: Bool) -> Int? {
        var size = stat()
        guard fstat(descriptor, &size) == 0 else { return nil }
        if startsLine || offset == 0 { return offset < Int(size.st_size) ? offset : nil }
        var position = offset - 1
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while position < Int(size.st_size) {
            let got = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, $0.count, off_t(position)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return nil }
            if let feed = lineFeed(in: chunk, from: 0, before: got) {
                let start = position + feed + 1
                return start < Int(size.st_size) ? start : nil
            }
            position += got
        }
        return nil
    }
}
