import Foundation

/// Reads an input in blocks of whole lines, for the lanes to map: the reader finds only the
/// last line end of each block (the lanes find the others), so reading costs nothing per
/// record. Memory is bounded: a block is at most `blockSize` bytes, or one line up to
/// `LineReader.maximumLine`; a longer line is reported (`tooLong`) and skipped to its end.
///
/// When the lanes read (`lanesRead`: a regular file, several lanes) it reads nothing: it hands
/// out the file's byte ranges in order (`range`), and the lane that maps each reads it
/// (`LaneRead`), so no one thread reads for every lane.
package final class BlockReader {
    package enum Item {
        /// Whole lines (the last one without its end only at the end of the input), and
        /// where they start in the input.
        case lines([UInt8], offset: Int)
        /// A line over the limit, skipped: its first bytes, and where it starts.
        case tooLong([UInt8], offset: Int)
        /// A range of the file for a lane to read (`LaneRead`): the lines that start in it;
        /// whether its first byte is known to start one (it is where reading started).
        case range(Range<Int>, startsLine: Bool)
        /// A record the input's format could not read (`RecordDecoder`): rejected in its turn.
        case rejected(FormatReject)
    }

    package let descriptor: Int32
    /// Where reading started in the input (a line's start).
    private let startOffset: Int
    /// Whether the lanes read the file themselves: the reader hands out ranges (`range`).
    package let lanesRead: Bool
    package let blockSize: Int
    /// Bytes read after the last line end handed out: the start of the next line.
    @exclusivity(unchecked) private var carry: [UInt8] = []
    /// Where `carry` starts in the input.
    @exclusivity(unchecked) private var carryOffset = 0
    /// Skipping the rest of a line over the limit, up to its end.
    @exclusivity(unchecked) private var discarding = false
    /// Whether the input ended (a read found no more).
    @exclusivity(unchecked) package private(set) var reachedEnd = false
    /// Why reading stopped before the end, when the system refused a read.
    package private(set) var failure: InputFile.Failure?
    /// Whether the input is a regular file (reading it never waits on a writer).
    package let isRegularFile: Bool
    /// Whether a regular file's last line without its line feed is left unread (its writer may
    /// not have written the rest yet): what a run does that a later run goes on from (`--job`,
    /// `--resume-from`), as `tail -F` does.
    package let waitsForLineEnd: Bool
    /// The bytes of such a line, at the end: where a next run starts, and how much it is.
    package private(set) var heldBack = 0
    /// The file's size and where its last line feed ends, when last found (lanes waiting for
    /// line ends): the end of what the ranges hand out.
    private var lastSize = -1
    private var lastLineEnd = 0
    /// The input's format, when it is not JSON lines: what is read goes through it, and the
    /// lines handed out are its records' (`DecodedRecords`), which keep the input's numbering.
    private var decoder: (any RecordDecoder)?
    /// The records the decoder rejected and not handed out yet, each where it comes in `carry`.
    private var formatRejects: [(at: Int, reject: FormatReject)] = []
    /// Why the input's format could not read on, when it could not: the input ends there.
    package private(set) var formatFailure: FormatFailure?

    /// Reads `descriptor` from where it stands, which is `offset` bytes into the input; with
    /// `lanesRead`, a regular file is left to the lanes to read (a pipe is read here); with
    /// `waitsForLineEnd`, a regular file ends at its last line feed.
    /// With a `decoder` (an input format other than JSON lines), the reader reads the bytes and
    /// the decoder makes the lines (the lanes never read; a record cut at the end of a file is
    /// the decoder's to finish); the lines' offsets are then the decoded text's, not the input's.
    package init(
        descriptor: Int32, blockSize: Int, startingAt offset: Int = 0, lanesRead: Bool = false,
        waitsForLineEnd: Bool = false, decoder: (any RecordDecoder)? = nil
    ) {
        self.descriptor = descriptor
        self.blockSize = max(blockSize, 1 << 12)
        carryOffset = offset
        startOffset = offset
        var status = stat()
        isRegularFile = fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        self.lanesRead = lanesRead && isRegularFile && decoder == nil
        self.waitsForLineEnd = waitsForLineEnd && isRegularFile && decoder == nil
        self.decoder = decoder
    }

    /// Whether the input is read through a format's decoder (its offsets are not the input's).
    package var decodes: Bool { decoder != nil }

    /// Where the first byte not handed out is in the input (the start of a line, unless the
    /// lanes read: then where the next range starts).
    package var nextOffset: Int { carryOffset }

    /// Where the first line not handed out starts, `nil` when the input has no more lines: where
    /// a stopped run resumes when no record was left unmapped.
    package var nextLineOffset: Int? {
        guard lanesRead else { return reachedEnd && carry.isEmpty ? nil : carryOffset }
        return lineStart(atOrAfter: carryOffset)
    }

    /// Where the first line that starts at `offset` or after it starts in the file (a range
    /// handed out and not read: where a run that stopped before it resumes); `nil` when the
    /// file has no line there.
    package func lineStart(atOrAfter offset: Int) -> Int? {
        LaneRead.lineStart(of: descriptor, atOrAfter: offset, startsLine: offset == startOffset)
    }

    /// After the lanes read to where the input ends: the position of the descriptor, which
    /// `pread` leaves alone, goes there, as if it had been read (a shell's next command reading
    /// the same standard input starts after it).
    package func settle(at offset: Int) {
        guard lanesRead else { return }
        lseek(descriptor, off_t(offset), SEEK_SET)
    }

    /// A lane's read failed: reading stops there, as if the reader's had.
    package func lanesFailed(errno: Int32) {
        failure = InputFile.Failure(errno: errno)
        reachedEnd = true
    }

    /// Bytes read but not handed out: the start of a line whose end has not come yet.
    package var pending: [UInt8] { carry }

    /// The next block. With `wait`, waits for one (checking `stop` every 100 ms); without,
    /// returns `nil` when no whole line is at hand. At the end of the input the last line (if
    /// any) comes, then `nil` for good; after `stop`, `nil` (the rest stays `pending`).
    package func next(wait: Bool, stop: () -> Bool) -> Item? {
        if lanesRead { return nextRange(stop: stop) }
        while true {
            if let first = formatRejects.first, let item = cutBefore(first) { return item }
            if !discarding, carry.count > LineReader.maximumLine, let item = cutOverlong() { return item }
            if !discarding, let block = cut(atEnd: reachedEnd) { return block }
            if discarding, let end = carry.firstIndex(of: 0x0A) {
                carryOffset += end + 1
                carry.removeFirst(end + 1)
                discarding = false
                continue
            }
            if discarding {
                carryOffset += carry.count
                carry.removeAll(keepingCapacity: true)
            }
            if reachedEnd || stop() { return nil }
            let filled = decoder == nil ? fill(timeout: wait ? 100 : 0) : fillDecoding(timeout: wait ? 100 : 0)
            guard filled || wait else { return nil }
        }
    }

    /// The lines before a record the format rejected, else that record (`rejected`).
    private func cutBefore(_ first: (at: Int, reject: FormatReject)) -> Item? {
        guard first.at > 0 else {
            formatRejects.removeFirst()
            return .rejected(first.reject)
        }
        let lines = Array(carry[..<first.at])
        let offset = carryOffset
        carryOffset += first.at
        carry.removeFirst(first.at)
        for index in formatRejects.indices { formatRejects[index].at -= first.at }
        return .lines(lines, offset: offset)
    }

    /// Reads up to a block's worth and has the decoder make records of it (at the end of the
    /// input, of what it kept), as `fill` does for JSON lines; a fault the format cannot read
    /// past ends the input (`formatFailure`), after the records before it.
    private func fillDecoding(timeout: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeout) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: blockSize)
        var count: Int
        repeat {
            count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
        } while count < 0 && errno == EINTR
        if count < 0 {
            if errno == EAGAIN { return false }
            failure = InputFile.Failure(errno: errno)
            reachedEnd = true
            return true
        }
        var records = DecodedRecords()
        do throws(FormatFailure) {
            if count == 0 {
                reachedEnd = true
                try decoder!.finish(into: &records)
            } else {
                let read = count
                try chunk.withUnsafeBytes { raw in
                    Result { () throws(FormatFailure) in
                        try decoder!.decode(UnsafeRawBufferPointer(rebasing: raw[..<read]), into: &records)
                    }
                }.get()
            }
        } catch {
            formatFailure = error
            reachedEnd = true
        }
        for (at, reject) in records.rejects { formatRejects.append((carry.count + at, reject)) }
        carry += records.text
        return true
    }

    /// The next range of the file for a lane to read, `nil` at its end (the size it has now).
    private func nextRange(stop: () -> Bool) -> Item? {
        guard !reachedEnd, !stop() else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            failure = InputFile.Failure(errno: errno)
            reachedEnd = true
            return nil
        }
        var size = Int(status.st_size)
        if waitsForLineEnd {
            // The ranges end at the last line feed: a lane never takes a line its writer has not ended.
            if size != lastSize {
                guard let end = LaneRead.lastLineEnd(of: descriptor, before: size, notBefore: carryOffset) else {
                    failure = InputFile.Failure(errno: errno)
                    reachedEnd = true
                    return nil
                }
                (lastSize, lastLineEnd) = (size, end)
            }
            heldBack = size - lastLineEnd
            size = lastLineEnd
        }
        guard carryOffset < size else {
            reachedEnd = true
            return nil
        }
        let range = carryOffset..<min(size, carryOffset + blockSize)
        carryOffset = range.upperBound
        return .range(range, startsLine: range.lowerBound == startOffset)
    }

    /// With more carried than a line may hold: the lines before the first line over the limit,
    /// else that line (`tooLong`), taken out through its end (the rest of it skipped as it
    /// comes when its end has not); `nil` when no line is over the limit.
    private func cutOverlong() -> Item? {
        var lineStart = 0
        while lineStart < carry.count {
            let end = carry[lineStart...].firstIndex(of: 0x0A)
            let length = (end ?? carry.count) - lineStart
            if length > LineReader.maximumLine {
                if lineStart > 0 {
                    let offset = carryOffset
                    let lines = Array(carry[..<lineStart])
                    carryOffset += lineStart
                    carry.removeFirst(lineStart)
                    return .lines(lines, offset: offset)
                }
                let head = Array(carry[..<min(lineStart + length, 200)])
                let offset = carryOffset
                if let end {
                    carryOffset += end + 1
                    carry.removeFirst(end + 1)
                } else {
                    carryOffset += carry.count
                    carry.removeAll(keepingCapacity: false)
                    discarding = true
                }
                return .tooLong(head, offset: offset)
            }
            guard let end else { return nil }
            lineStart = end + 1
        }
        return nil
    }

    /// Cuts the carried bytes at their last line end, when they hold one and enough bytes (or
    /// no more are at hand); at the end of the input, the rest as a last line.
    private func cut(atEnd: Bool) -> Item? {
        guard !carry.isEmpty else { return nil }
        guard let last = carry.lastIndex(of: 0x0A) else {
            guard atEnd else { return nil }
            if waitsForLineEnd {
                heldBack = carry.count
                return nil
            }
            let bytes = carry
            let offset = carryOffset
            carryOffset += carry.count
            carry = []
            return .lines(bytes, offset: offset)
        }
        let offset = carryOffset
        carryOffset += last + 1
        // The block keeps the storage; only the start of the next line is copied out.
        var bytes = carry
        carry = Array(carry[(last + 1)...])
        bytes.removeSubrange((last + 1)...)
        return .lines(bytes, offset: offset)
    }

    /// Reads up to a block's worth into `carry`, waiting at most `timeout` milliseconds for
    /// the first bytes and taking what else is at hand; false when nothing came. The bytes are
    /// read straight into the block's storage (no zero-fill, no second copy).
    private func fill(timeout: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeout) > 0 else { return false }
        var gotAny = false
        // A long line grows the buffer by half again each time, not by a fixed step: reading
        // it costs a few copies of it, not one per step.
        let capacity = max(blockSize, carry.count + max(1 << 16, carry.count / 2))
        let filled = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            carry.withUnsafeBufferPointer { old in
                if let base = old.baseAddress { buffer.baseAddress!.initialize(from: base, count: old.count) }
            }
            initialized = carry.count
            while initialized < capacity {
                let count = read(descriptor, buffer.baseAddress! + initialized, capacity - initialized)
                if count == 0 {
                    reachedEnd = true
                    break
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    if errno != EAGAIN {
                        failure = InputFile.Failure(errno: errno)
                        reachedEnd = true
                    }
                    break
                }
                initialized += count
                gotAny = true
                // A pipe hands over what it has: take more only while more is at hand.
                if !isRegularFile {
                    var again = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    if poll(&again, 1, 0) <= 0 { break }
                }
            }
        }
        carry = filled
        return gotAny || reachedEnd
    }
}
