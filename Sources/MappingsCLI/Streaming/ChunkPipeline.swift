import Foundation

/// Maps one chunk of records on worker lanes while the caller takes the outcomes in input
/// order, with the bytes of outcomes done but not yet taken bounded.
///
/// A lane starts the next record only while the outcomes held stay under `byteLimit`, or when
/// that record is the one the caller takes next (so the stream always moves). Memory in
/// flight is therefore at most `byteLimit` plus one record per lane. The caller never blocks
/// for long: `take` waits at most its timeout, so a stop signal is seen even while a lane is
/// stuck in a call; `cancel` then keeps lanes from starting anything more.
///
/// `@unchecked Sendable` because its lanes run on `LanePool`'s threads: the state they share
/// with the caller is read and written only with `condition` locked, which the compiler
/// cannot check (an `NSCondition`, since lanes and caller wait on it, which `Mutex` cannot).
final class ChunkPipeline<Input: Sendable, Output: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private let inputs: [Input]
    private let byteLimit: Int
    private let work: @Sendable (Input) -> (Output, Int)
    // Guarded by `condition`. `@exclusivity(unchecked)`: the lock already keeps accesses
    // apart, and the runtime check on each access showed in a small record's cost.
    @exclusivity(unchecked) private var outputs: [Output?]
    @exclusivity(unchecked) private var sizes: [Int]
    @exclusivity(unchecked) private var started: [Bool]
    @exclusivity(unchecked) private var next = 0
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var held = 0
    @exclusivity(unchecked) private var cancelled = false
    @exclusivity(unchecked) private var takerWaiting = false
    @exclusivity(unchecked) private var lanesWaiting = 0
    @exclusivity(unchecked) private var finished = 0

    /// Starts `lanes` lanes over `inputs`; `work` returns an outcome and its size in bytes.
    init(inputs: [Input], lanes: Int, byteLimit: Int, work: @escaping @Sendable (Input) -> (Output, Int)) {
        self.inputs = inputs
        self.byteLimit = byteLimit
        self.work = work
        outputs = Array(repeating: nil, count: inputs.count)
        sizes = Array(repeating: 0, count: inputs.count)
        started = Array(repeating: false, count: inputs.count)
        for _ in 0..<max(1, min(lanes, inputs.count)) {
            LanePool.shared.run { self.lane() }
        }
    }

    private func lane() {
        condition.lock()
        while true {
            while !cancelled, next < inputs.count, held > byteLimit, next != head {
                lanesWaiting += 1
                condition.wait()
                lanesWaiting -= 1
            }
            if cancelled || next >= inputs.count { break }
            let index = next
            next += 1
            started[index] = true
            condition.unlock()
            let (output, size) = work(inputs[index])
            condition.lock()
            outputs[index] = output
            sizes[index] = size
            held += size
            finished += 1
            // Waking the taker for every record would cost a context switch each: it is woken
            // when the chunk is done, when held outcomes should be written to make room, or when
            // a batch is ready to write (so writing overlaps mapping instead of following it).
            if takerWaiting, worthTaking { condition.broadcast() }
        }
        condition.unlock()
    }

    /// How many outcomes in order make a batch worth waking the taker for.
    static var batch: Int { 128 }

    /// Whether the taker has something to do: the chunk is done, room is needed, or a batch of
    /// outcomes is ready in order. Read with `condition` locked.
    private var worthTaking: Bool {
        if finished == inputs.count || held > byteLimit / 2 || lanesWaiting > 0 { return true }
        guard finished - head >= Self.batch, head < outputs.count else { return false }
        return outputs[head] != nil
    }

    /// The outcomes from `index` on that are done, in order. Waits until the chunk is done or
    /// room is needed or a batch is ready, at most `timeout` seconds, then returns what is ready
    /// (maybe none).
    func take(from index: Int, timeout: TimeInterval) -> [Output] {
        condition.lock()
        defer { condition.unlock() }
        let limit = Date(timeIntervalSinceNow: timeout)
        takerWaiting = true
        while !worthTaking, !cancelled, condition.wait(until: limit) {}
        takerWaiting = false
        var taken: [Output] = []
        var at = index
        while at < outputs.count, let output = outputs[at] {
            taken.append(output)
            outputs[at] = nil
            held -= sizes[at]
            at += 1
        }
        head = at
        if !taken.isEmpty, lanesWaiting > 0 { condition.broadcast() }
        return taken
    }

    /// Starts nothing more. Returns, for each record from `index` on, its outcome when it is
    /// done, else whether a lane had started it.
    func cancel(from index: Int) -> [(output: Output?, started: Bool)] {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        condition.broadcast()
        return (index..<inputs.count).map { at in
            let output = outputs[at]
            outputs[at] = nil
            return (output, started[at])
        }
    }
}
