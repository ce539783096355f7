import Foundation

/// What a lane made of one block so far: the output of its records (one buffer, lines in
/// order), the events of those that were more than an output line, counts and latencies.
///
/// The lane publishes each record under `lock` (one uncontended lock a record), so the writer
/// can take what is done of a block whose lane is stuck in a slow call (`abandon`) without
/// waiting for it; afterwards the lane publishes nothing more.
///
/// `@unchecked Sendable`: shared by a lane and the writer; every field is read and written
/// with `lock` held, which the compiler cannot check.
package final class BlockResult: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    /// A consistent view of a block's results.
    package struct State: Sendable {
        /// The lines this result covers: the block submitted, or its first part once a lane cut
        /// it in two to share it with an idle lane (`tail` then holds the rest).
        package var block: RecordBlock
        /// The result of the rest of the block, when a lane cut it: written after this one.
        package var tail: BlockResult?
        /// The records' output lines, in order.
        package var output: [UInt8] = []
        /// The records that were more than an output line, in order.
        package var events: [RecordEvent] = []
        /// Lines handled (records and blank lines), from the block's start.
        package var lines = 0
        /// Where the first line not handled starts in the block's bytes.
        package var nextLine = 0
        /// Records handled, and those of them the fast plan wrote.
        package var records = 0
        package var planned = 0
        package var latency = LatencyHistogram()
        /// The CPU time lanes spent on this block's records, in nanoseconds.
        package var cpuNanoseconds = 0
        /// The line a lane is mapping now (within the block, from 1) and where it is.
        package var current: (line: Int, range: Range<Int>)?
        /// Whether a lane took the block, and whether it handled every line of it.
        package var started = false
        package var finished = false
        /// Whether the writer gave up on it (the lane then publishes nothing more).
        package var abandoned = false
        /// Whether `block` holds the block's bytes: false while a block its lane reads itself
        /// (`RecordPipeline.submit(reading:)`) is not read yet; `block` is then empty and its
        /// offset where the lane starts looking for the block's first line.
        package var loaded = true
        /// Why the lane could not read the block, when the system refused a read.
        package var readFailure: Int32?
    }

    /// How a lane reads a block of its own: the block, or the `errno` of a read that failed.
    package typealias Reading = @Sendable () -> Result<RecordBlock, ReadFailure>

    /// A read the system refused.
    package struct ReadFailure: Error, Sendable {
        package let errno: Int32

        package init(errno: Int32) { self.errno = errno }
    }

    /// How the lane that takes the block reads it (guarded by `lock`; `nil` once taken).
    private var reading: Reading?

    init(block: RecordBlock, reading: Reading? = nil) {
        state = State(block: block)
        state.nextLine = block.range.lowerBound
        state.loaded = reading == nil
        self.reading = reading
    }

    /// For the lane that took the block: the block, read first when its lane reads it (`nil`
    /// when the writer gave up on it, or the read failed: then the block is finished, empty).
    func load() -> RecordBlock? {
        let (block, reading): (RecordBlock?, Reading?) = update { state in
            guard !state.abandoned else { return (nil, nil) }
            defer { self.reading = nil }
            if state.loaded { state.started = true }
            return (state.loaded ? state.block : nil, self.reading)
        }
        if let block { return block }
        guard let reading else { return nil }
        let read = reading()
        return update { state in
            guard !state.abandoned else { return nil }
            switch read {
            case .success(let block):
                state.block = block
                state.nextLine = block.range.lowerBound
                state.loaded = true
                state.started = true
                return block
            case .failure(let failure):
                state.readFailure = failure.errno
                state.finished = true
                return nil
            }
        }
    }

    /// Runs `body` with the state locked.
    func update<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    /// The state as it stands.
    package var snapshot: State { update { $0 } }

    /// Whether a lane handled every line.
    package var isFinished: Bool { update { $0.finished } }

    /// Gives up on the block: what is published stays, and nothing more will be; returns it.
    package func abandon() -> State {
        update { state in
            state.abandoned = true
            return state
        }
    }

    /// Cuts what the lane has not started of its block off it, in two parts (one line: one
    /// part): the first — its first half, or its next line when few are left — for the lane
    /// that asks, the second (if any) to queue for the next free lane, both written after this
    /// block, in that order. Records thus start about in input
    /// order whatever lane maps them. `nil` when nothing is left to take.
    func splitRemainder() -> (taken: BlockResult, queued: BlockResult?)? {
        update { state in
            guard state.started, !state.finished, !state.abandoned else { return nil }
            let block = state.block
            // What no lane has started: after the record in progress, else from the next line.
            var from = state.nextLine
            if let current = state.current { from = block.start(after: current.range) }
            guard from < block.range.upperBound else { return nil }
            let rest = block.part(from..<block.range.upperBound)
            // A few lines left (slow records, or the end of the input): the next one alone, so
            // that records start in input order; many: the first half.
            var lines = 0
            var second = rest.range.upperBound
            rest.forEachLine { _, next in
                lines += 1
                if lines == 1 { second = next }
                return lines <= 16
            }
            let halves =
                lines <= 16
                ? (second < rest.range.upperBound
                    ? (rest.part(rest.range.lowerBound..<second), rest.part(second..<rest.range.upperBound)) : nil)
                : rest.split()
            let taken = BlockResult(block: halves?.0 ?? rest)
            let queued = halves.map { BlockResult(block: $0.1) }
            if let queued {
                queued.state.tail = state.tail
                taken.state.tail = queued
            } else {
                taken.state.tail = state.tail
            }
            state.block = block.part(block.range.lowerBound..<from)
            state.tail = taken
            return (taken, queued)
        }
    }

    /// Takes what the lane published since the last take: the state with `output` and
    /// `events` holding only that (and `records`, `planned`, `latency` counting only it), so
    /// that a writer streams out the block at the head of the line while its lane goes on,
    /// and the block's output never piles up. `lines`, `nextLine` and the flags are the
    /// block's so far.
    package func take() -> State {
        update { state in
            let taken = state
            state.output = []
            state.events = []
            state.records = 0
            state.planned = 0
            state.latency = LatencyHistogram()
            return taken
        }
    }
}
