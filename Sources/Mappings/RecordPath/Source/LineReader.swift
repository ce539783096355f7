import Foundation

/// Reads lines from a file descriptor with bounded memory, and can stop between reads.
///
/// Lines end with `\n` (a `\r` before it is dropped). A line longer than `maximumLine` is
/// reported as `.tooLong` with its start, and skipped up to its end.
package final class LineReader {
    package enum Item {
        /// A complete line, without its end.
        case line([UInt8])
        /// A line over the limit: its first bytes.
        case tooLong([UInt8])
        /// Bytes after the last line end, left when reading stopped (a stop signal) before the
        /// line was complete: not a record, but where a resumed run starts.
        case partial([UInt8])
    }

    package static let maximumLine = JSONLines.maximumLine
    private let descriptor: Int32
    /// The input's offset of `buffer[0]`: what was read and let go before it.
    @exclusivity(unchecked) private var base = 0
    /// The input's offset of the first byte of the item `next` returned last.
    @exclusivity(unchecked) package private(set) var itemOffset = 0
    /// Whether the input itself ended (a read found no more), not only reading.
    @exclusivity(unchecked) package private(set) var reachedEnd = false
    // `@exclusivity(unchecked)`: only the stream's thread reads a reader, one call at a time;
    // the runtime check on each access to these was 2% of a small record's cost.
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var scanned = 0
    @exclusivity(unchecked) private var ended = false
    @exclusivity(unchecked) private var discarding = false
    /// Why reading stopped before the end, when the system refused a read.
    package private(set) var failure: InputFile.Failure?

    /// The input's offset of the first byte not handed over yet (where a resumed run starts).
    package var nextOffset: Int { base + start }

    /// Whether the input is a regular file (reading it never waits on a writer).
    package let isRegularFile: Bool

    package init(descriptor: Int32) {
        self.descriptor = descriptor
        var status = stat()
        isRegularFile = fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// The next line. With `wait`, blocks until a line, the end, or `stop()` returning true
    /// (checked every 100 ms); without, returns `nil` when no complete line is at hand.
    /// At the end (or once stopped) returns the rest, then `nil` for good.
    package func next(wait: Bool, stop: () -> Bool) -> Item? {
        while true {
            if let end = newline(from: scanned) {
                var line = Array(buffer[start..<end])
                itemOffset = base + start
                start = end + 1
                scanned = start
                if discarding {
                    discarding = false
                    continue
                }
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return .line(line)
            }
            scanned = buffer.count
            if buffer.count - start > Self.maximumLine, !discarding {
                let head = Array(buffer[start..<start + 200])
                itemOffset = base + start
                discarding = true
                start = buffer.count
                scanned = start
                return .tooLong(head)
            }
            if discarding {
                start = buffer.count
                scanned = start
            }
            if ended || stop() {
                let complete = ended  // at the end of input, the rest is a last line without its end
                ended = true
                guard start < buffer.count, !discarding else { return nil }
                var rest = Array(buffer[start...])
                itemOffset = base + start
                start = buffer.count
                scanned = start
                guard complete else { return .partial(rest) }
                if rest.last == UInt8(ascii: "\r") { rest.removeLast() }
                return .line(rest)
            }
            guard fill(timeout: wait ? 100 : 0) || wait else { return nil }
        }
    }

    /// The offset of the first line end at or after `offset` (memchr: this runs over every byte).
    private func newline(from offset: Int) -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            guard offset < bytes.count,
                let found = memchr(bytes.baseAddress! + offset, Int32(UInt8(ascii: "\n")), bytes.count - offset)
            else { return nil }
            return bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Reads what is available within `timeout` milliseconds; false when nothing came.
    private func fill(timeout: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeout)
        guard ready > 0 else { return false }
        if start > 0, start >= buffer.count / 2 {
            base += start
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        let chunk = 1 << 16
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + old, chunk) }
        buffer.removeLast(chunk - max(0, count))
        if count == 0 {
            ended = true
            reachedEnd = true
        }
        if count < 0, errno != EINTR, errno != EAGAIN {
            failure = InputFile.Failure(errno: errno)
            ended = true
        }
        return count != 0
    }
}
