import Foundation

/// Reads an input in blocks of whole lines, for the lanes to map: the reader finds only the
/// last line end of each block (the lanes find the others), so reading costs nothing per
/// record. Memory is bounded: a block is at most `blockSize` bytes, or one line up to
/// `LineReader.maximumLine`; a longer line is reported (`tooLong`) and skipped to its end.
final class BlockReader {
    enum Item {
        /// Whole lines (the last one without its end only at the end of the input), and
        /// where they start in the input.
        case lines([UInt8], offset: Int)
        /// A line over the limit, skipped: its first bytes, and where it starts.
        case tooLong([UInt8], offset: Int)
    }

    private let descriptor: Int32
    let blockSize: Int
    /// Bytes read after the last line end handed out: the start of the next line.
    @exclusivity(unchecked) private var carry: [UInt8] = []
    /// Where `carry` starts in the input.
    @exclusivity(unchecked) private var carryOffset = 0
    /// Skipping the rest of a line over the limit, up to its end.
    @exclusivity(unchecked) private var discarding = false
    /// Whether the input ended (a read found no more).
    @exclusivity(unchecked) private(set) var reachedEnd = false
    /// Why reading stopped before the end, when the system refused a read.
    private(set) var failure: InputFile.Failure?
    /// Whether the input is a regular file (reading it never waits on a writer).
    let isRegularFile: Bool

    /// Reads `descriptor` from where it stands, which is `offset` bytes into the input.
    init(descriptor: Int32, blockSize: Int, startingAt offset: Int = 0) {
        self.descriptor = descriptor
        self.blockSize = max(blockSize, 1 << 12)
        carryOffset = offset
        var status = stat()
        isRegularFile = fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// Where the first byte not handed out is in the input (the start of a line): where a
    /// stopped run resumes when no record was left unmapped.
    var nextOffset: Int { carryOffset }

    /// Bytes read but not handed out: the start of a line whose end has not come yet.
    var pending: [UInt8] { carry }

    /// The next block. With `wait`, waits for one (checking `stop` every 100 ms); without,
    /// returns `nil` when no whole line is at hand. At the end of the input the last line (if
    /// any) comes, then `nil` for good; after `stop`, `nil` (the rest stays `pending`).
    func next(wait: Bool, stop: () -> Bool) -> Item? {
        while true {
            if !discarding, let block = cut(atEnd: reachedEnd) { return block }
            if discarding, let end = carry.firstIndex(of: 0x0A) {
                carryOffset += end + 1
                carry.removeFirst(end + 1)
                discarding = false
                continue
            }
            if !discarding, carry.count > LineReader.maximumLine {
                let head = Array(carry.prefix(200))
                let offset = carryOffset
                carryOffset += carry.count
                carry.removeAll(keepingCapacity: false)
                discarding = true
                return .tooLong(head, offset: offset)
            }
            if discarding {
                carryOffset += carry.count
                carry.removeAll(keepingCapacity: true)
            }
            if reachedEnd || stop() { return nil }
            guard fill(timeout: wait ? 100 : 0) || wait else { return nil }
        }
    }

    /// Cuts the carried bytes at their last line end, when they hold one and enough bytes (or
    /// no more are at hand); at the end of the input, the rest as a last line.
    private func cut(atEnd: Bool) -> Item? {
        guard !carry.isEmpty else { return nil }
        guard let last = carry.lastIndex(of: 0x0A) else {
            guard atEnd else { return nil }
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
        let capacity = max(blockSize, carry.count + (1 << 16))
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
