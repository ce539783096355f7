import Dispatch
import Foundation
package import Mappings
package import MappingsEncoding
package import MappingsLua
import MappingsSpark

/// One `mappings stream` run: reads its inputs in blocks of whole lines, has the lanes of a
/// `RecordPipeline` map them, and writes each block's output and events in input order.
///
/// The thread that runs it does no work per record: it reads big blocks (finding only each
/// block's last line end), writes each block's output in one piece, and handles the events of
/// the records that were more than an output line (rejects, warnings, log lines). Every record
/// read is written, rejected, or (when the stream stops before it) counted as not processed.
package struct StreamRun {
    /// How records are mapped now (a reload swaps it between blocks).
    var records: RecordMapper
    /// With `--watch`: the reloads.
    var reloads: StreamReloads?
    let context: String
    let workers: Int
    let policy: IssuePolicy
    let output: OutputBuffer
    let rejects: OutputBuffer
    /// Whether rejects go to the terminal (no `--rejects`): then each is one line saying why,
    /// and the record itself is left to a rejects file.
    package var rejectsSummarized = false
    /// Whether the line saying where a record and all its issues go was written.
    var rejectsHinted = false
    /// `--spark-frames`: stdout holds a frame per record (its Spark row, its reject, or that it
    /// was filtered) and the stats last (`SparkFrame`); nothing else is written there.
    var framesRecords = false
    /// The bytes of input held in flight (read but not yet written).
    let maxInFlight: Int
    /// How long records in flight may still take once a stop signal came.
    let grace: Duration
    /// When the grace period after a stop signal ends.
    private var graceEnds: ContinuousClock.Instant?
    package var counts = Counts()
    var stats = Stats()
    package var stopReason: StopReason?
    /// Where a run that stopped early should start again: the first record not processed.
    package var resume: Resume?
    /// Where scripts' log lines go: its count of dropped lines is in the stats.
    let scriptLog: LuaLog
    var progress: StreamProgress
    /// Whether records go through the context's fast plan (not with `--general-engine`).
    let usesFastPlan: Bool
    /// `--omit-nulls`: records leave unset properties out.
    let omitNulls: Bool
    /// Whether a version swapped in prints its load warnings (not with `--quiet`).
    package var showsLoadWarnings = true
    /// With `--metrics-listen`: where the counts are published for the metrics endpoint.
    package var board: StreamBoard?
    /// Resuming standard input at a line it does not have: the lines it had.
    package var inputEndedBeforeResume: Int?
    /// Each input as given and its size at the end (`nil`: not a regular file), for `--stats`.
    var inputSizes: [(file: String, size: Int?)] = []
    /// `--to`: where records go instead of the output, committed with the input's position.
    package let sink: (any RecordSink)?
    /// Why the sink stopped taking records, when it did.
    package var sinkFailure: RecordSinkFailure?
    /// The last position the sink was handed: where a run that read everything ends.
    var sinkLast: Resume?
    /// `--job`: a run stopped early resumes by being started again, not by `--resume-from`.
    package var resumesByJob = false
    /// With `--job`: the file being read, whose positions the sink keeps with its identity.
    var tracked: TrackedInput?
    /// Whether the input being read goes through a format's decoder: its places are lines
    /// (the input's, which the decoder keeps), without byte offsets (those of its JSON lines
    /// are not the input's).
    var decodedInput = false
    /// `--to-format`: the output's encoder, when it is not JSON lines.
    package var outputEncoder: OutputEncoding?

    package init(
        mapper: Mapper, compiled: CompiledContext, reloader: CatalogReloader?, context: String, workers: Int,
        policy: IssuePolicy, output: OutputBuffer, rejects: OutputBuffer, showProgress: Bool, maxInFlight: Int,
        grace: Duration, reloadTimeout: Duration, scriptLog: LuaLog = .standardError,
        statsFile: (path: String, interval: Duration)? = nil, usesFastPlan: Bool = true, omitNulls: Bool = false,
        sparkRows: SparkRowEncoder? = nil, sink: (any RecordSink)? = nil
    ) {
        self.scriptLog = scriptLog
        self.maxInFlight = maxInFlight
        self.grace = grace
        self.usesFastPlan = usesFastPlan
        self.omitNulls = omitNulls
        let records = RecordMapper(
            mapper: mapper, context: compiled, usesFastPlan: usesFastPlan, omittingNulls: omitNulls)
        self.records =
            (sink as? any EncodingRecordSink).map { records.encoding($0.encoding) } ?? sparkRows.map(records.encoding)
            ?? records
        self.sink = sink
        self.framesRecords = sparkRows != nil
        self.reloads = reloader.map { StreamReloads(reloader: $0, timeout: reloadTimeout) }
        self.context = context
        self.workers = workers
        self.policy = policy
        self.output = output
        self.rejects = rejects
        self.progress = StreamProgress(showProgress: showProgress, statsFile: statsFile)
        stats.hasPlan = records.hasFastPlan
    }

    /// The size of a block: small enough that each lane has a few in flight within the bound,
    /// large enough that the reader and the writer do little per byte.
    package var blockSize: Int {
        min(1 << 20, max(1 << 16, maxInFlight / (4 * (workers + 1))))
    }

    /// How much input is read ahead of the writer: half the bound, but no more than four blocks
    /// a lane (and the writer's) — enough to keep every lane busy; reading further ahead only
    /// touches fresh memory, which costs the reader a page fault per page.
    var readAhead: Int {
        min(maxInFlight / 2, 4 * (workers + 1) * blockSize)
    }

    /// What is read and not yet written, in input order.
    enum Pending {
        /// A block, and the bytes of input it holds against the read-ahead bound (of its chain:
        /// its parts after the first hold none).
        case block(BlockResult, held: Int)
        /// A line over the limit, skipped by the reader: rejected in its turn.
        case tooLong(head: [UInt8], offset: Int)
        /// A record the input's format could not read: rejected in its turn.
        case unreadable(FormatReject)
    }

    /// Where the stream stands in one input, for what it writes and where it would resume.
    struct Position {
        /// The input as given (`nil`: standard input).
        var file: String?
        /// Lines of the input before the first pending item (the head block).
        var linesBefore = 0
        /// Lines of the head block already written.
        var linesWritten = 0
    }

    /// Where reading an input starts (`--resume-from`): a file is read from the offset of the
    /// line, the lines before it counted; standard input skips them.
    package struct Start {
        /// Where the reader starts in the input, in bytes.
        package var offset = 0
        /// The lines of the input before `offset`.
        package var linesBefore = 0
        /// Lines to read and skip before the first record.
        package var skipLines = 0
        /// The checksum of a file's bytes before `offset`, when the start was checked against one.
        package var prefix: InputFingerprint.Prefix?

        package init(offset: Int = 0, linesBefore: Int = 0, skipLines: Int = 0, prefix: InputFingerprint.Prefix? = nil)
        {
            self.offset = offset
            self.linesBefore = linesBefore
            self.skipLines = skipLines
            self.prefix = prefix
        }
    }

    /// What `consume` keeps from one round of reading and writing to the next.
    private struct Consuming {
        let pipeline: RecordPipeline
        var pending: [Pending] = []
        /// The input bytes submitted and not yet written.
        var held = 0
        var position: Position
        var headResult: BlockResult?
        var inputEnded = false
        /// Resuming standard input: the lines still to skip (read, and not mapped).
        var toSkip: Int
    }

    /// Reads and maps every record of one input, until its end, a stop signal or a failure,
    /// from `start` (`--resume-from`).
    package mutating func consume(_ reader: BlockReader, file: String?, stop: StopSignal, from start: Start = Start()) {
        // Half the bound for the input read ahead, half for the output not yet written.
        let pipeline = RecordPipeline(lanes: workers, outputLimit: maxInFlight / 2) { body in LuaLog.capturing(body) }
        defer { pipeline.finish() }
        var state = Consuming(
            pipeline: pipeline, position: Position(file: file, linesBefore: start.linesBefore), toSkip: start.skipLines)
        track(reader, file: file, from: start)
        decodedInput = reader.decodes
        while stopReason == nil {
            let readerIdle = readAhead(&state, reader, stop: stop)
            guard writeReady(&state, reader, readerIdle: readerIdle) else { return }
            tick()
            if let signal = stop.raisedSignal {
                // Lanes end the record they map and start no other; what they finish within the
                // grace period is written, the rest is not processed (a resumed run maps it).
                if graceEnds == nil {
                    graceEnds = ContinuousClock.now + grace
                    pipeline.stopLanes()
                }
                if Self.lanesIdle(state.pending) || ContinuousClock.now >= graceEnds! {
                    stopReason = .signal(signal)
                    interrupt(state.pending, at: state.position, reader: reader)
                    return
                }
            }
            if state.inputEnded, state.pending.isEmpty {
                if state.toSkip > 0 { inputEndedBeforeResume = state.position.linesBefore }
                if reader.heldBack > 0 {
                    // Where a next run goes on: the summary, the stats and the job say so.
                    noteResume(Resume(file: file, line: state.position.linesBefore + 1, offset: reader.nextOffset))
                    Terminal.error(
                        "mappings stream: \(file ?? "-"):\(state.position.linesBefore + 1) has no line feed yet (\(reader.heldBack) bytes): left for the next run, which maps it once its line ends"
                    )
                }
                reader.settle(at: reader.nextOffset)
                if state.toSkip == 0 {
                    sinkReached(
                        Resume(
                            file: file, line: state.position.linesBefore + 1,
                            offset: reader.isRegularFile ? reader.nextOffset : nil))
                }
                return
            }
        }
    }

    /// Reads and submits blocks while there is room, waiting for input only when nothing is in
    /// flight; returns whether the reader had nothing more at hand (the writer may then wait for
    /// the lanes). A file is skipped through to where a run resumes whatever signal comes (the
    /// place to resume from stays exact); standard input stops at once.
    private mutating func readAhead(_ state: inout Consuming, _ reader: BlockReader, stop: StopSignal) -> Bool {
        // Called every 100 ms or so while the reader waits: progress and stats keep coming.
        func stopped() -> Bool {
            tick()
            return stop.raisedSignal != nil
        }
        let skipsFile = reader.isRegularFile
        var readerIdle = true
        while !state.inputEnded, stop.raisedSignal == nil || (state.toSkip > 0 && skipsFile), state.held < readAhead {
            let skipping = state.toSkip > 0 && skipsFile
            guard let item = reader.next(wait: state.pending.isEmpty, stop: { skipping ? false : stopped() }) else {
                state.inputEnded = reader.reachedEnd
                break
            }
            readerIdle = false
            switch item {
            case .lines(var bytes, var offset):
                if state.toSkip > 0 {
                    let (lines, cut) = Self.skip(state.toSkip, linesOf: bytes)
                    state.toSkip -= lines
                    state.position.linesBefore += lines
                    guard cut < bytes.count else { continue }
                    bytes.removeSubrange(..<cut)
                    offset += cut
                }
                reloadIfAsked(stop)
                let block = RecordBlock(bytes: bytes, offset: offset, records: records, writesErrors: policy == .emit)
                state.pending.append(.block(state.pipeline.submit(block), held: bytes.count))
                state.held += bytes.count
            case .range(let range, let startsLine):
                reloadIfAsked(stop)
                let read = LaneRead(
                    descriptor: reader.descriptor, range: range, startsLine: startsLine, records: records,
                    writesErrors: policy == .emit)
                let placeholder = RecordBlock(
                    bytes: [], offset: range.lowerBound, records: records, writesErrors: policy == .emit)
                state.pending.append(
                    .block(state.pipeline.submit(reading: read.read, placeholder: placeholder), held: range.count))
                state.held += range.count
            case .tooLong(let head, let offset):
                if state.toSkip > 0 {
                    state.toSkip -= 1
                    state.position.linesBefore += 1
                    continue
                }
                state.pending.append(.tooLong(head: head, offset: offset))
            case .rejected(let reject):
                // Resuming skips whole records: a reject's lines all come before the place.
                if state.toSkip > 0 {
                    let lines = min(state.toSkip, reject.lines)
                    state.toSkip -= lines
                    state.position.linesBefore += lines
                    continue
                }
                state.pending.append(.unreadable(reject))
            }
        }
        return readerIdle
    }

    /// Writes what the lanes published, in order: the head block streams out as its lane goes,
    /// so its output never piles up; the next block's turn comes when it is done. Returns
    /// `false` when the input ends here (`--on-issue fail`, a lane's read that failed).
    private mutating func writeReady(_ state: inout Consuming, _ reader: BlockReader, readerIdle: Bool) -> Bool {
        while stopReason == nil, let head = state.pending.first {
            if rejectUnmapped(head, at: &state.position) {
                state.pending.removeFirst()
                guard stopReason == nil else {
                    // `--on-issue fail`: what follows is not processed.
                    state.pipeline.stopLanes()
                    notProcessed(from: nil, then: state.pending, at: state.position, reader: reader)
                    return false
                }
                continue
            }
            guard case .block(let result, let weight) = head else { break }
            if result !== state.headResult {
                state.headResult = result
                state.position.linesWritten = 0
                state.pipeline.setHead(result)
            }
            // Wait for the lanes unless there is more to read meanwhile.
            let waits = readerIdle || state.inputEnded || state.held >= readAhead
            _ = state.pipeline.wait(for: result, timeout: waits ? 0.05 : 0)
            let piece = result.take()
            state.pipeline.took(piece.output.count)
            if let failure = piece.readFailure {
                // A lane's read failed: the input ends there, as when the reader's fails.
                state.pipeline.stopLanes()
                for case .block(let later, _) in state.pending { _ = later.abandon() }
                reader.lanesFailed(errno: failure)
                return false
            }
            if let failed = write(piece, at: state.position) {
                // `--on-issue fail`: the failing record is rejected; what follows is not processed.
                state.pipeline.stopLanes()
                state.position.linesBefore += failed.line
                notProcessed(
                    from: (piece, failed.next), then: Array(state.pending.dropFirst()), at: state.position,
                    reader: reader)
                return false
            }
            state.position.linesWritten = piece.lines
            if sink != nil {
                let block = piece.block
                sinkReached(
                    Resume(
                        file: state.position.file, line: state.position.linesBefore + piece.lines + 1,
                        offset: block.offset + (piece.nextLine - block.range.lowerBound)))
                guard sinkFailure == nil else {
                    state.pipeline.stopLanes()
                    for case .block(let later, _) in state.pending { _ = later.abandon() }
                    return false
                }
            }
            guard piece.finished else { break }
            state.position.linesBefore += piece.lines
            if let tail = piece.tail {
                state.pending[0] = .block(tail, held: weight)
                continue
            }
            state.held -= weight
            state.pending.removeFirst()
            if let overlong = piece.block.overlong {
                // The line over the limit the block's lane skipped, after the block's lines.
                state.position.linesBefore += 1
                rejectTooLong(overlong.head, at: state.position)
                if stopReason != nil {
                    state.pipeline.stopLanes()
                    notProcessed(from: nil, then: state.pending, at: state.position, reader: reader)
                    return false
                }
            }
        }
        return true
    }

    /// Whether no lane maps a record of the pending blocks any more.
    private static func lanesIdle(_ pending: [Pending]) -> Bool {
        var queue = pending[...]
        while let item = queue.popFirst() {
            guard case .block(let result, _) = item else { continue }
            let state = result.snapshot
            if state.current != nil { return false }
            if let tail = state.tail { queue.append(.block(tail, held: 0)) }
        }
        return true
    }

    /// Where the line `count` lines into `bytes` starts (its end when there are fewer), and
    /// how many lines that skips.
    private static func skip(_ count: Int, linesOf bytes: [UInt8]) -> (lines: Int, cut: Int) {
        var lines = 0
        var cut = 0
        RecordBlock.forEachLine(in: bytes, range: bytes.indices) { _, next in
            guard lines < count else { return false }
            lines += 1
            cut = next
            return true
        }
        return (lines, cut)
    }
}
