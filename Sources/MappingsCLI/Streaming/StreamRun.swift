import Dispatch
import Foundation
import Mappings
import MappingsLua

/// One `mappings stream` run: reads records in chunks, maps each chunk on the workers, and
/// writes the results in input order; every record read is written, rejected, or (when a stop
/// signal's grace period ran out first) counted as not processed.
struct StreamRun {
    /// A record as read: where it is, and its bytes.
    private struct Record {
        var file: String?
        var line: Int
        /// Where the line starts in its input, in bytes.
        var offset: Int
        var bytes: [UInt8]
        /// Why the reader could not give the whole line, when it could not.
        var unreadable: (kind: String, message: String)?
    }

    /// What mapping one record gave.
    private enum Outcome {
        case mapped([UInt8])
        /// Mapped cleanly by the context's fast plan.
        case planned([UInt8])
        /// Mapped with warnings only: written whatever the policy, the warnings on stderr.
        case withWarnings([UInt8], [MappingIssue])
        /// Mapped with at least one error (and maybe warnings): what the policy says.
        case withIssues([UInt8], [MappingIssue])
        case invalid(kind: String, message: String)

        /// About the bytes it holds, for the in-flight bound.
        var size: Int {
            switch self {
            case .mapped(let text), .planned(let text): text.count
            case .withIssues(let text, let issues), .withWarnings(let text, let issues):
                text.count + issues.count * 256
            case .invalid(_, let message): message.utf8.count
            }
        }
    }

    /// An outcome, how long mapping the record took on its lane, and the lines its scripts
    /// logged meanwhile (written with the outcome, so they come out in input order).
    private struct Timed {
        var outcome: Outcome
        var nanoseconds: UInt64
        var log: String
    }

    private(set) var mapper: Mapper
    /// The streamed context, looked up once (and again after each reload).
    private var compiled: CompiledContext
    /// Its fast plan, when it has one (made again after each reload).
    private var plan: FastPlan?
    /// With `--watch`: the catalog kept current, checked between chunks.
    let reloader: CatalogReloader?
    private var lastWatch = DispatchTime.now()
    let context: String
    let workers: Int
    let policy: IssuePolicy
    let output: OutputBuffer
    let rejects: OutputBuffer
    let showProgress: Bool
    /// The bytes of records held in flight (read but not yet written), beyond one per worker.
    let maxInFlight: Int
    /// How long records in flight may still take once a stop signal came.
    let grace: Duration
    private var graceEnds: ContinuousClock.Instant?
    private var pendingReload: PendingReload?
    /// Whether the stream has waited for `pendingReload` (it waits at most once, at the start).
    private var pendingReloadWaited = false
    /// Whether the stream gave up waiting for `pendingReload` (and logged the refusal).
    private var pendingReloadAbandoned = false
    /// How long a reload may take before it is refused.
    let reloadTimeout: Duration
    private(set) var counts = Counts()
    /// Where a run that stopped early should start again: the first record not processed.
    private(set) var resume: Resume?
    private(set) var stats = Stats()
    private(set) var stopReason: StopReason?
    private var lastProgress = DispatchTime.now()
    private var progressShown = false
    /// Where scripts' log lines go: its count of dropped lines is in the stats.
    let scriptLog: LuaLog
    /// `--stats FILE` and `--stats-interval SECONDS`: the stats are written there every
    /// interval while the stream runs (and by the command at the end).
    let statsFile: (path: String, interval: Duration)?
    /// `--omit-nulls`: records leave unset properties out.
    var omitNulls = false
    /// Whether records go through the context's fast plan, when it has one (not with `--general-engine`).
    var usesFastPlan = true {
        didSet { stats.hasPlan = plan != nil && usesFastPlan }
    }
    /// Whether a version swapped in prints its load warnings (not with `--quiet`).
    var showsLoadWarnings = true
    private var lastStatsWrite = ContinuousClock.now
    /// How often the progress line may change.
    static let progressInterval: UInt64 = 250_000_000

    static let chunkSize = 1024

    init(
        mapper: Mapper, compiled: CompiledContext, reloader: CatalogReloader?, context: String, workers: Int,
        policy: IssuePolicy,
        output: OutputBuffer, rejects: OutputBuffer, showProgress: Bool, maxInFlight: Int, grace: Duration,
        reloadTimeout: Duration, scriptLog: LuaLog = .standardError,
        statsFile: (path: String, interval: Duration)? = nil
    ) {
        self.scriptLog = scriptLog
        self.statsFile = statsFile
        self.maxInFlight = maxInFlight
        self.grace = grace
        self.reloadTimeout = reloadTimeout
        self.mapper = mapper
        self.compiled = compiled
        self.plan = try? mapper.fastPlan(for: compiled).get()
        stats.hasPlan = plan != nil
        self.reloader = reloader
        self.context = context
        self.workers = workers
        self.policy = policy
        self.output = output
        self.rejects = rejects
        self.showProgress = showProgress
    }

    /// Reads and maps every record of one input, until its end, a stop signal or a failure.
    ///
    /// The next chunk is read while the lanes map the current one (from what the input has at
    /// hand, never waiting for more), so that they find it ready when they finish.
    mutating func consume(_ reader: LineReader, file: String?, stop: StopSignal, from firstLine: Int = 1) {
        var line = 0
        // The line a stop came in the middle of, if one did: the last place to resume from.
        var stoppedInLine: Resume?
        let chunkBytes = maxInFlight / 4
        // Called every 100 ms or so while the reader waits: progress and stats keep coming.
        func stopped() -> Bool {
            tick()
            return stop.raisedSignal != nil
        }
        // Reads lines into `chunk` until it is full or, without `wait`, the input has no more at
        // hand; with `wait`, waits for its first line (until the end or `stopped`).
        func read(into chunk: inout [Record], wait: Bool, stopped: () -> Bool) {
            var held = chunk.reduce(0) { $0 + $1.bytes.count }
            while chunk.count < Self.chunkSize, held < chunkBytes,
                let item = reader.next(
                    wait: wait && chunk.isEmpty,
                    // Skipping to where a run resumes reads a file through, stop or not, so that the
                    // place to resume from stays known; a pipe still stops.
                    stop: { line + 1 < firstLine && reader.isRegularFile ? false : stopped() })
            {
                line += 1
                // Resuming: the lines before the one to start at are skipped, not read.
                if line < firstLine {
                    // Stopped before that line was reached: it is still where to start.
                    if case .partial = item { stoppedInLine = Resume(file: file, line: firstLine, offset: nil) }
                    continue
                }
                if case .line(let text) = item { held += text.count }
                switch item {
                case .line(let bytes):
                    if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                    chunk.append(Record(file: file, line: line, offset: reader.itemOffset, bytes: bytes))
                case .tooLong(let head):
                    chunk.append(
                        Record(
                            file: file, line: line, offset: reader.itemOffset, bytes: head,
                            unreadable: ("line too long", "the line is longer than \(LineReader.maximumLine) bytes")))
                case .partial:
                    // A stop came while this line was partly read: not a record, but where a
                    // resumed run starts (the line may well be whole in its input).
                    stoppedInLine = Resume(file: file, line: line, offset: reader.itemOffset)
                }
            }
        }
        var next: [Record] = []
        while stopReason == nil {
            var chunk = next
            read(into: &chunk, wait: true, stopped: stopped)
            if chunk.isEmpty {
                if let number = stop.raisedSignal { stopReason = .signal(number) }
                break
            }
            reloadIfAsked(stop)
            // After a signal the reader still hands over every line already buffered, then the
            // unfinished rest, then nil: records in flight are mapped, not dropped, as long as the
            // grace period lasts.
            next = handle(chunk, stop: stop) {
                var prefetched: [Record] = []
                // After a signal the reader hands over what it has buffered, then ends (as below).
                read(into: &prefetched, wait: false, stopped: { stop.raisedSignal != nil })
                return prefetched
            }
        }
        // Stopped before the end of what was read: the records read ahead and the lines still
        // buffered are read, not processed.
        counts.read += next.count
        counts.unprocessed += next.count
        if let first = next.first { noteResume(Resume(file: first.file, line: first.line, offset: first.offset)) }
        while case .signal = stopReason, let item = reader.next(wait: false, stop: { true }) {
            line += 1
            if case .partial = item {
                stoppedInLine = Resume(file: file, line: line, offset: reader.itemOffset)
                continue
            }
            if case .line(let bytes) = item, bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            noteResume(Resume(file: file, line: line, offset: reader.itemOffset))
            counts.read += 1
            counts.unprocessed += 1
        }
        if stopReason != nil, let stoppedInLine { noteResume(stoppedInLine) }
        // Stopped between lines: the next one, unless the input has ended; still the line to
        // start at when the stop came before it (a pipe skipped to it: its offset is unknown).
        if stopReason != nil, !reader.reachedEnd {
            let unreached = line + 1 < firstLine
            noteResume(
                Resume(
                    file: file, line: unreached ? firstLine : line + 1, offset: unreached ? nil : reader.nextOffset))
        }
    }

    /// Keeps `resume` as where to start again, unless an earlier record already is.
    mutating func noteResume(_ resume: Resume) {
        if self.resume == nil { self.resume = resume }
    }

    /// Between chunks: with `--watch`, picks up edits (checked at most every 250 ms); on SIGHUP,
    /// reloads. A new version is swapped in only when it loads and its tests pass within the
    /// reload timeout, and only if it still has the context; every swap and refusal is logged
    /// on stderr with its version. The reload runs on its own thread: the stream waits for it
    /// once, up to a second, then goes on with the version it has and looks again between
    /// chunks without waiting.
    private mutating func reloadIfAsked(_ stop: StopSignal) {
        guard let reloader else { return }
        if pendingReload == nil {
            let forced = stop.takeHangup()
            let now = DispatchTime.now()
            guard forced || now.uptimeNanoseconds - lastWatch.uptimeNanoseconds >= 250_000_000 else { return }
            lastWatch = now
            pendingReload = PendingReload(reloader: reloader, forced: forced, timeout: reloadTimeout)
            pendingReloadWaited = false
            pendingReloadAbandoned = false
        }
        guard let pending = pendingReload else { return }
        // Wait once, when the reload starts; later chunks only look whether it has finished.
        if !pendingReloadWaited {
            pendingReloadWaited = true
            let waitUntil = min(pending.started + reloadTimeout, ContinuousClock.now + .seconds(1))
            while pending.outcome == nil, ContinuousClock.now < waitUntil, stop.raisedSignal == nil {
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
        guard let outcome = pending.outcome else {
            if !pendingReloadAbandoned, ContinuousClock.now >= pending.started + reloadTimeout {
                pendingReloadAbandoned = true
                stats.warnings += 1
                stats.log(
                    Stats.Reload(
                        time: Date(), version: pending.attempt, swapped: false,
                        reason: "loading took longer than \(reloadTimeout) (--reload-timeout)"))
                Terminal.error(
                    "mappings stream: version \(pending.attempt) refused, still mapping with version \(reloader.current.number): loading took longer than \(reloadTimeout) (--reload-timeout)"
                )
            }
            return
        }
        pendingReload = nil
        // An abandoned reload was logged as refused when it was given up; the reloader refused it too.
        if pendingReloadAbandoned { return }
        switch outcome {
        case .unchanged:
            break
        case .swapped(let version):
            guard let compiled = version.catalog.context(context) else {
                stats.warnings += 1
                stats.log(
                    Stats.Reload(
                        time: Date(), version: version.number, swapped: false,
                        reason: "no context \"\(context)\""))
                Terminal.error(
                    "mappings stream: version \(version.number) has no context \"\(context)\"; still mapping with the previous one"
                )
                return
            }
            mapper = Mapper(catalog: version.catalog)
            self.compiled = compiled
            plan = try? mapper.fastPlan(for: compiled).get()
            stats.hasPlan = plan != nil && usesFastPlan
            stats.version = version.number
            stats.log(Stats.Reload(time: Date(), version: version.number, swapped: true, reason: nil))
            Terminal.error("mappings stream: now mapping with version \(version.number) (after record \(counts.read))")
            if showsLoadWarnings { Terminal.diagnostics(version.catalog.warnings, severity: "warning") }
        case .refused(let attempt, let reason):
            stats.warnings += 1
            let firstLine = reason.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? reason
            stats.log(Stats.Reload(time: Date(), version: attempt, swapped: false, reason: firstLine))
            Terminal.error(
                "mappings stream: version \(attempt) refused, still mapping with version \(reloader.current.number):\n\(reason)"
            )
        }
    }

    /// Maps a chunk on the workers and writes its outcomes in order, as they come. After a stop
    /// signal, records still mapping when the grace period ends are rejected as interrupted, and
    /// those not started are counted as not processed.
    ///
    /// `readAhead` runs once the lanes have started: what it returns is the next chunk.
    private mutating func handle(_ chunk: [Record], stop: StopSignal, readAhead: () -> [Record]) -> [Record] {
        let mapper = self.mapper
        let context = self.compiled
        let plan = usesFastPlan ? self.plan : nil
        let omitNulls = self.omitNulls
        let pipeline = ChunkPipeline(inputs: chunk, lanes: workers, byteLimit: maxInFlight) { record in
            LuaLog.setRecord(record.line)  // the record scripts' log lines name
            defer { LuaLog.setRecord(0) }
            let started = DispatchTime.now().uptimeNanoseconds
            let (outcome, log) = LuaLog.capturing {
                Self.outcome(of: record, mapper: mapper, context: context, plan: plan, omitNulls: omitNulls)
            }
            let took = DispatchTime.now().uptimeNanoseconds &- started
            return (
                Timed(outcome: outcome, nanoseconds: took, log: log), outcome.size + log.utf8.count + record.bytes.count
            )
        }
        let next = readAhead()
        var index = 0
        while index < chunk.count, stopReason == nil {
            let ready = pipeline.take(from: index, timeout: 0.05)
            for timed in ready where stopReason == nil {
                stats.latency.record(nanoseconds: timed.nanoseconds)
                scriptLog.write(captured: timed.log)
                write(timed.outcome, of: chunk[index])
                index += 1
            }
            tick()
            if stopReason == nil, let signal = stop.raisedSignal {
                let now = ContinuousClock.now
                if graceEnds == nil { graceEnds = now + grace }
                if let graceEnds, now >= graceEnds {
                    stopReason = .signal(signal)
                }
            }
        }
        if index < chunk.count {
            for (record, rest) in zip(chunk[index...], pipeline.cancel(from: index)) {
                guard case .signal(let signal) = stopReason else {
                    counts.read += 1
                    counts.unprocessed += 1
                    noteResume(Resume(file: record.file, line: record.line, offset: record.offset))
                    continue
                }
                if let output = rest.output {
                    stats.latency.record(nanoseconds: output.nanoseconds)
                    scriptLog.write(captured: output.log)
                    write(output.outcome, of: record)  // done within the grace period after all
                } else if rest.started {
                    counts.read += 1
                    counts.interrupted += 1
                    stats.count(issue: "interrupted")
                    let message =
                        "the stream was stopped (\(StopReason.signal(signal))) while this record was being mapped"
                    reject(
                        record,
                        issues: [
                            .object(JSONObject([("kind", .string("interrupted")), ("message", .string(message))]))
                        ])
                } else {
                    counts.read += 1
                    counts.unprocessed += 1
                    noteResume(Resume(file: record.file, line: record.line, offset: record.offset))
                }
            }
        }
        output.flush()
        rejects.flush()
        tick()
        return next
    }

    /// Writes or rejects one record's outcome, by the policy.
    private mutating func write(_ outcome: Outcome, of record: Record) {
        counts.read += 1
        switch outcome {
        case .mapped(let text):
            output.line(text)
            counts.written += 1
        case .planned(let text):
            output.line(text)
            counts.written += 1
            stats.planned += 1
        case .withWarnings(let text, let warnings):
            for warning in warnings { stats.count(issue: warning.kind.rawValue) }
            output.line(text)
            counts.written += 1
            stats.withWarnings += 1
            stats.warnings += warnings.count
            for warning in warnings { Terminal.error("\(place(of: record)): \(warning)") }
        case .withIssues(let text, let issues):
            for issue in issues { stats.count(issue: issue.kind.rawValue) }
            switch policy {
            case .reject:
                reject(record, issues: issues.map(\.json))
            case .emit:
                output.line(text)
                counts.written += 1
                counts.withIssues += 1
                stats.warnings += issues.count
                for issue in issues { Terminal.error("\(place(of: record)): \(issue)") }
            case .fail:
                reject(record, issues: issues.map(\.json))
                for issue in issues { Terminal.error("\(place(of: record)): \(issue)") }
                stopReason = .failure
            }
        case .invalid(let kind, let message):
            counts.invalid += 1
            stats.count(issue: kind)
            reject(record, issues: [.object(JSONObject([("kind", .string(kind)), ("message", .string(message))]))])
            if policy == .fail {
                Terminal.error("\(place(of: record)): \(message)")
                stopReason = .failure
            }
        }
    }

    private static func outcome(
        of record: Record, mapper: Mapper, context: CompiledContext, plan: FastPlan?, omitNulls: Bool
    ) -> Outcome {
        if let unreadable = record.unreadable { return .invalid(kind: unreadable.kind, message: unreadable.message) }
        // The fast plan writes a record it maps cleanly; any other record is mapped again the
        // general way, which reports what is wrong with it (without calling again the
        // transformers the plan called: `memo`).
        let memo = plan?.callsTransformers == true ? TransformerMemo() : nil
        if let plan {
            var text: [UInt8] = []
            text.reserveCapacity(record.bytes.count)
            if plan.write(record.bytes, into: &text, omittingNulls: omitNulls, memo: memo) { return .planned(text) }
        }
        let result: MappingResult
        do {
            result = try mapper.object(fromJSON: record.bytes, using: context, memo: memo)
        } catch {
            return .invalid(kind: "invalid JSON", message: "column \(error.column): \(error.message)")
        }
        var text: [UInt8] = []
        text.reserveCapacity(record.bytes.count)
        JSONWriter.write(result.value, into: &text, omittingNulls: omitNulls)
        if result.issues.isEmpty { return .mapped(text) }
        return result.hasErrors ? .withIssues(text, result.issues) : .withWarnings(text, result.issues)
    }

    private mutating func reject(_ record: Record, issues: [JSONValue]) {
        var members: [(key: String, value: JSONValue)] = []
        if let file = record.file { members.append(("file", .string(file))) }
        members.append(("line", .integer(Int64(record.line))))
        members.append(("input", .string(String(decoding: record.bytes, as: UTF8.self))))
        members.append(("issues", .array(issues)))
        // Invisible characters escaped: the same value to a JSON reader, and safe on a terminal.
        rejects.line(JSONWriter.safeText(.object(JSONObject(members))))
        counts.rejected += 1
    }

    private func place(of record: Record) -> String {
        "\(record.file ?? "<stdin>"):\(record.line)"
    }

    /// Between records and while waiting for input: the progress line and the periodic stats,
    /// each when its interval has passed.
    private mutating func tick() {
        reportProgress()
        guard let statsFile, ContinuousClock.now - lastStatsWrite >= statsFile.interval else { return }
        lastStatsWrite = ContinuousClock.now
        do {
            try writeStats(to: statsFile.path, running: true)
        } catch {
            stats.warnings += 1
            Terminal.error("mappings stream: cannot write the stats file \"\(statsFile.path)\"")
        }
    }

    /// With `--progress`: at most four times a second, the counts so far and the rate, on
    /// stderr (over the previous line on a terminal, one line each otherwise).
    private mutating func reportProgress() {
        guard showProgress else { return }
        let now = DispatchTime.now()
        guard now.uptimeNanoseconds - lastProgress.uptimeNanoseconds >= Self.progressInterval else { return }
        lastProgress = now
        let rate = Int((Double(counts.read) / max(stats.elapsed, 0.001)).rounded())
        let line = "\(summary), \(rate) records/s"
        if Self.progressOverwrites {
            progressShown = true
            FileHandle.standardError.write(Data("\r\(line)".utf8))
        } else {
            FileHandle.standardError.write(Data("\(line)\n".utf8))
        }
    }

    /// Whether the progress line overwrites itself: on a terminal only.
    static let progressOverwrites = isatty(STDERR_FILENO) == 1

    private var summary: String {
        var text = "mappings stream: read \(counts.read), written \(counts.written), rejected \(counts.rejected)"
        if counts.unprocessed > 0 { text += ", not processed \(counts.unprocessed)" }
        if counts.withIssues > 0 { text += " (\(counts.withIssues) written with issues)" }
        if stats.withWarnings > 0 { text += " (\(stats.withWarnings) written with warnings)" }
        if counts.interrupted > 0 { text += " (\(counts.interrupted) rejected as interrupted)" }
        return text
    }

    /// Prints the summary; `read == written + rejected + unprocessed` always holds.
    func finish() {
        output.flush()
        rejects.flush()
        var text = summary
        if let stopReason { text += ", stopped by \(stopReason)" }
        if let resume { text += "; resume with --resume-from \(resume.argument)" }
        FileHandle.standardError.write(Data(((progressShown ? "\r" : "") + text + "\n").utf8))
    }
}
