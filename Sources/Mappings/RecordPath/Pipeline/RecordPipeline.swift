import Dispatch
import Foundation
import Synchronization

/// Maps blocks of NDJSON on worker lanes: the record path (`RecordMapper`) many cores wide.
///
/// The caller submits blocks of whole lines in input order and takes each block's result in
/// that order (`BlockResult`): one buffer holding the output of its records, and the events
/// of those that were more than an output line. A lane maps a whole block — it finds the
/// lines, maps each record and appends its output — so the caller (a reader and a writer)
/// does no work per record: it reads big blocks and writes whole buffers. How much is in
/// flight is the caller's to bound: it submits while what it holds is under its limit.
///
/// Scripts' log lines are held per record (`capture`) and come back as events, so a writer
/// gives them in input order whatever the number of lanes.
///
/// `@unchecked Sendable`: lanes and the caller share the queue and the flags, read and written
/// with `condition` locked, which the compiler cannot check.
package final class RecordPipeline: @unchecked Sendable {
    /// Runs a record's mapping with its scripts' log lines held back, and returns those lines.
    package typealias Capture = @Sendable (_ body: () -> Void) -> [ScriptLogEntry]

    private let condition = NSCondition()
    private var queue: [BlockResult] = []
    private var shuttingDown = false
    /// Lanes waiting for a block: when there are, a lane that starts a record wakes them, so
    /// that one of them takes the rest of its block (`BlockResult.splitRemainder`).
    private let idleLanes = Atomic(0)
    /// The blocks lanes are mapping (guarded by `condition`): where idle lanes take work from.
    private var active: [BlockResult] = []
    private let lanes: Int
    private let capture: Capture?
    /// Set by `stopLanes`: lanes end their record in progress and take nothing more.
    private let halted = Atomic(false)
    /// Output bytes published and not yet taken, and the most there may be: past it, a lane
    /// waits before its next record unless its block is the head (which the writer drains).
    private let outputHeld = Atomic(0)
    private let outputLimit: Int
    /// The block the writer takes from now (guarded by `condition`).
    private var head: BlockResult?
    /// Lanes waiting for room (guarded by `condition`).
    private var waitingForRoom = 0

    /// Whether lanes time each record (the latency `stream --stats` reports): two clock reads
    /// a record that a caller who reports no latency does without.
    private let timesRecords: Bool

    /// Starts `lanes` lanes (threads of `LanePool`), which wait for blocks; `outputLimit`
    /// bounds the output held in flight; `timesRecords`: whether results carry latencies.
    package init(lanes: Int, outputLimit: Int = .max, capture: Capture? = nil, timesRecords: Bool = true) {
        self.lanes = max(1, lanes)
        self.outputLimit = outputLimit
        self.capture = capture
        self.timesRecords = timesRecords
        for _ in 0..<self.lanes {
            LanePool.shared.run { [self] in lane() }
        }
    }

    deinit {
        condition.lock()
        shuttingDown = true
        condition.broadcast()
        condition.unlock()
    }

    /// Queues a block for the next free lane; its result, to take in order.
    package func submit(_ block: RecordBlock) -> BlockResult {
        let result = BlockResult(block: block)
        condition.lock()
        queue.append(result)
        condition.signal()
        condition.unlock()
        return result
    }

    /// Queues a block the lane that takes it reads itself (`reading`), so that no one thread
    /// reads for every lane: `placeholder` is the empty block it stands for until then (its
    /// offset where the lane starts reading, its mapper the one the block is mapped with).
    package func submit(reading: @escaping BlockResult.Reading, placeholder: RecordBlock) -> BlockResult {
        let result = BlockResult(block: placeholder, reading: reading)
        condition.lock()
        queue.append(result)
        condition.signal()
        condition.unlock()
        return result
    }

    /// Waits until `result`'s block is finished, at most `timeout` seconds; whether it is.
    package func wait(for result: BlockResult, timeout: Double) -> Bool {
        if result.isFinished { return true }
        let limit = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !result.isFinished {
            guard condition.wait(until: limit) else { return result.isFinished }
        }
        return true
    }

    /// Says which block the writer takes from now: its lane never waits for room.
    package func setHead(_ result: BlockResult?) {
        condition.lock()
        head = result
        if waitingForRoom > 0 { condition.broadcast() }
        condition.unlock()
    }

    /// The writer took `bytes` of output: lanes waiting for room may go on.
    package func took(_ bytes: Int) {
        guard bytes > 0 else { return }
        outputHeld.subtract(bytes, ordering: .relaxed)
        condition.lock()
        if waitingForRoom > 0 { condition.broadcast() }
        condition.unlock()
    }

    /// Before a record: waits while the output held is over its limit, unless `result` is the
    /// head's block (the writer drains it, so the stream always moves) or the lanes stop.
    private func waitForRoom(_ result: BlockResult) {
        guard outputHeld.load(ordering: .relaxed) > outputLimit else { return }
        condition.lock()
        while outputHeld.load(ordering: .relaxed) > outputLimit, head !== result, !halted.load(ordering: .relaxed) {
            waitingForRoom += 1
            condition.wait()
            waitingForRoom -= 1
        }
        condition.unlock()
    }

    /// Lanes take no block more (those queued stay unstarted) and stop between records of the
    /// blocks they map; the lanes then end.
    package func stopLanes() {
        halted.store(true, ordering: .relaxed)
        condition.lock()
        queue.removeAll()
        condition.broadcast()
        shuttingDown = true
        condition.broadcast()
        condition.unlock()
    }

    /// Takes no block more once those queued are done: the lanes end when the queue is empty.
    package func finish() {
        condition.lock()
        shuttingDown = true
        condition.broadcast()
        condition.unlock()
    }

    private func lane() {
        var scratch: [UInt8] = []
        // The lane's own copy of the mapper of the blocks it maps (a new one after a reload).
        var records: RecordMapper?
        while let result = nextBlock() {
            map(result, records: &records, scratch: &scratch)
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The next block: the first queued, else the second half of what another lane has left
    /// of its block (so that a few large blocks, or one small block of slow records, keep every
    /// lane busy), else waits. With blocks queued, lanes map them whole: no cutting.
    private func nextBlock() -> BlockResult? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if !queue.isEmpty { return queue.removeFirst() }
            if shuttingDown || halted.load(ordering: .relaxed) { return nil }
            for result in active {
                guard let (taken, queued) = result.splitRemainder() else { continue }
                if let queued {
                    queue.insert(queued, at: 0)
                    condition.signal()
                }
                return taken
            }
            idleLanes.add(1, ordering: .relaxed)
            condition.wait()
            idleLanes.subtract(1, ordering: .relaxed)
        }
    }

    /// Wakes idle lanes when there are: a lane started a block or a record, which they may share.
    private func wakeIdleLanes() {
        guard idleLanes.load(ordering: .relaxed) > 0 else { return }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// How many records' transformer calls a lane makes ahead in one batch per transformer:
    /// the first chunk of a block, and each one after it (made while the one before is written).
    static let firstBatchRecords = 8
    static let batchRecords = 48

    /// Makes the transformer calls of the records from byte `start` on (up to `batchRecords`,
    /// within what is still the block's), in batches: their memos by where each record starts.
    /// A record another lane takes meanwhile maps with its own calls; its answers here go unused.
    private func prepare(
        from start: Int, of block: RecordBlock, _ result: BlockResult, bytes: UnsafeBufferPointer<UInt8>,
        records: RecordMapper, count: Int
    ) -> (memos: [Int: TransformerMemo], next: Int) {
        let end = result.update { $0.block.range.upperBound }
        var lines: [Range<Int>] = []
        var after = end
        block.forEachLine(from: start) { line, next in
            guard line.lowerBound < end else { return false }
            if !block.isBlank(line) { lines.append(line) }
            after = next
            return lines.count < count
        }
        guard let memos = records.prepare(lines.map { UnsafeBufferPointer(rebasing: bytes[$0]) }) else {
            return ([:], after)
        }
        return (Dictionary(uniqueKeysWithValues: zip(lines.map(\.lowerBound), memos)), after)
    }

    /// How much output a lane publishes before it adds it to `outputHeld`: one shared counter
    /// touched per record by every lane would bounce its cache line between cores.
    private static let heldStep = 1 << 16

    /// Maps every record of a block, publishing each as it is done, with the lane's copy of
    /// the block's mapper (`records`, made again when the block's is another).
    private func map(_ result: BlockResult, records lanes: inout RecordMapper?, scratch: inout [UInt8]) {
        guard let block = result.load() else { return }
        if lanes?.isCopy(of: block.records) != true { lanes = block.records.independentCopy() }
        guard let records = lanes else { return }
        condition.lock()
        active.append(result)
        condition.unlock()
        wakeIdleLanes()
        defer {
            condition.lock()
            active.removeAll { $0 === result }
            condition.unlock()
        }
        var lineNumber = 0
        var stopped = false
        // The memos of records whose transformer calls a batch made ahead, by where they start,
        // and the next chunk's, being made on another thread while this one maps.
        var prepared: [Int: TransformerMemo] = [:]
        var ahead: PreparedAhead?
        let cpuStart = ThreadClock.cpuNanoseconds()
        // Output published and not yet added to `outputHeld`.
        var unaccounted = 0
        defer { if unaccounted > 0 { outputHeld.add(unaccounted, ordering: .relaxed) } }
        _ = block.bytes.withUnsafeBufferPointer { bytes in
            // What is made ahead reads these bytes: it ends before they go.
            defer { _ = ahead?.wait() }
            return block.forEachLine { line, next in
                lineNumber += 1
                if halted.load(ordering: .relaxed) {
                    stopped = true
                    return false
                }
                if block.isBlank(line) { return passBlank(line, number: lineNumber, next: next, in: result) }
                waitForRoom(result)
                let record = UnsafeBufferPointer(rebasing: bytes[line])
                let number = lineNumber
                // The block may have been cut meanwhile (another lane took its rest).
                guard
                    result.update({ state in
                        guard !state.abandoned, line.lowerBound < state.block.range.upperBound else { return false }
                        state.current = (number, line)
                        return true
                    })
                else { return false }
                wakeIdleLanes()
                scratch.removeAll(keepingCapacity: true)
                let startTime = timesRecords ? DispatchTime.now().uptimeNanoseconds : 0
                prepareMemos(
                    at: line, of: block, result, bytes: bytes, records: records, prepared: &prepared, ahead: &ahead)
                let memo = prepared.removeValue(forKey: line.lowerBound)
                var outcome = RecordOutcome(kind: .clean)
                var log: [ScriptLogEntry] = []
                if let capture, records.callsTransformers {
                    log = capture { outcome = records.map(record, into: &scratch, memo: memo) }
                } else {
                    outcome = records.map(record, into: &scratch, memo: memo)
                }
                let took = timesRecords ? DispatchTime.now().uptimeNanoseconds &- startTime : 0
                return publish(
                    outcome, log: log, output: scratch, line: line, number: number, next: next, took: took,
                    of: block, in: result, unaccounted: &unaccounted)
            }
        }
        let cpu = ThreadClock.cpuNanoseconds() - cpuStart
        result.update { state in
            state.current = nil
            state.cpuNanoseconds += cpu
            if !stopped { state.finished = true }
        }
    }

    /// A blank line: counted and passed over; `false` when the block ends there or was cut.
    private func passBlank(_ line: Range<Int>, number: Int, next: Int, in result: BlockResult) -> Bool {
        result.update { state in
            guard !state.abandoned, line.lowerBound < state.block.range.upperBound else { return false }
            state.lines = number
            state.nextLine = next
            return next < state.block.range.upperBound
        }
    }

    /// When the records' transformer calls are made in batches and the record at `line` has no
    /// memo yet: takes the chunk made ahead (or makes a short first one) into `prepared`, and
    /// starts making the next chunk on another thread.
    private func prepareMemos(
        at line: Range<Int>, of block: RecordBlock, _ result: BlockResult, bytes: UnsafeBufferPointer<UInt8>,
        records: RecordMapper, prepared: inout [Int: TransformerMemo], ahead: inout PreparedAhead?
    ) {
        guard records.batchesCalls, prepared[line.lowerBound] == nil else { return }
        var chunk: (memos: [Int: TransformerMemo], next: Int)
        // The chunk made ahead starts here, or at a blank line just before.
        if let pending = ahead, pending.start <= line.lowerBound {
            chunk = pending.wait()
        } else {
            _ = ahead?.wait()
            // A short first chunk: the lane has records to write sooner, while the next is made.
            chunk = prepare(
                from: line.lowerBound, of: block, result, bytes: bytes, records: records,
                count: Self.firstBatchRecords)
        }
        prepared = chunk.memos
        ahead = nil
        // The next chunk's calls are made while this one's records are written.
        if chunk.next < result.update({ $0.block.range.upperBound }) {
            let next = chunk.next
            ahead = PreparedAhead(start: next) {
                self.prepare(from: next, of: block, result, bytes: bytes, records: records, count: Self.batchRecords)
            }
        }
    }

    /// Puts a mapped record into its block's result: its output line when it is written, an
    /// event when it is more than that, its counts and latency; `false` when the block ends
    /// after it or was abandoned.
    private func publish(
        _ outcome: RecordOutcome, log: [ScriptLogEntry], output: [UInt8], line: Range<Int>, number: Int, next: Int,
        took: UInt64, of block: RecordBlock, in result: BlockResult, unaccounted: inout Int
    ) -> Bool {
        result.update { state in
            guard !state.abandoned else { return false }
            let written =
                outcome.kind == .clean || outcome.kind == .withWarnings
                || (outcome.kind == .withErrors && block.writesErrors && !outcome.unwritable)
            let outputStart = state.output.count
            if written {
                state.output.append(contentsOf: output)
                state.output.append(0x0A)
                unaccounted += output.count + 1
                if unaccounted >= Self.heldStep {
                    outputHeld.add(unaccounted, ordering: .relaxed)
                    unaccounted = 0
                }
            }
            if outcome.kind != .clean || !log.isEmpty {
                state.events.append(
                    RecordEvent(
                        line: number, range: line, outputStart: outputStart, written: written, outcome: outcome,
                        log: log))
            }
            state.records += 1
            if outcome.byFastPlan { state.planned += 1 }
            if timesRecords { state.latency.record(nanoseconds: took) }
            state.lines = number
            state.nextLine = next
            state.current = nil
            return next < state.block.range.upperBound
        }
    }
}

/// A chunk's transformer calls being made on another thread while a lane writes the chunk
/// before it: with Lua in worker processes, the worker runs the scripts while the lane maps.
private final class PreparedAhead: @unchecked Sendable {
    // `@unchecked`: `chunk` is written by the preparing thread before `done` is signalled, and
    // read by the lane only after it waited for it.
    let start: Int
    private var chunk: (memos: [Int: TransformerMemo], next: Int) = ([:], 0)
    private let done = DispatchSemaphore(value: 0)
    private var waited = false

    init(start: Int, _ work: @escaping () -> (memos: [Int: TransformerMemo], next: Int)) {
        self.start = start
        // The work reads the lane's block, which the lane keeps until `wait()` has returned.
        let job = Job(run: work)
        DispatchQueue.global().async {
            self.chunk = job.run()
            self.done.signal()
        }
    }

    private struct Job: @unchecked Sendable {
        let run: () -> (memos: [Int: TransformerMemo], next: Int)
    }

    /// The chunk, once made (waits for it the first time).
    func wait() -> (memos: [Int: TransformerMemo], next: Int) {
        if !waited {
            done.wait()
            waited = true
        }
        return chunk
    }
}
