import Dispatch
import Foundation
import Mappings

/// One `mappings stream` run: reads records in chunks, maps each chunk on the workers, and
/// writes the results in input order; every record read is either written or rejected.
struct StreamRun {
    /// What the counts say at the end: `read == written + rejected`.
    struct Counts {
        var read = 0
        var written = 0
        var rejected = 0
        /// Records written with issues (`--on-issue emit`), a part of `written`.
        var withIssues = 0
        /// Rejected because the line was not JSON (or too long, or cut off), a part of `rejected`.
        var invalid = 0

        func json(stopReason: StopReason?) -> JSONValue {
            .object(
                JSONObject([
                    ("read", .integer(Int64(read))), ("written", .integer(Int64(written))),
                    ("rejected", .integer(Int64(rejected))), ("withIssues", .integer(Int64(withIssues))),
                    ("invalid", .integer(Int64(invalid))),
                    ("stopped", .string(stopReason?.description ?? "end of input")),
                ]))
        }
    }

    enum StopReason: CustomStringConvertible {
        case signal(Int32)
        case failure

        var description: String {
            switch self {
            case .signal(let number): number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "signal \(number)"
            case .failure: "the first record with issues (--on-issue fail)"
            }
        }
    }

    /// A record as read: where it is, and its bytes.
    private struct Record {
        var file: String?
        var line: Int
        var bytes: [UInt8]
        /// Why the reader could not give the whole line, when it could not.
        var unreadable: (kind: String, message: String)?
    }

    /// What mapping one record gave.
    private enum Outcome {
        case mapped([UInt8])
        case withIssues([UInt8], [MappingIssue])
        case invalid(kind: String, message: String)
    }

    private(set) var mapper: Mapper
    /// The streamed context, looked up once (and again after each reload).
    private var compiled: CompiledContext
    /// With `--watch`: the catalog kept current, checked between chunks.
    let reloader: CatalogReloader?
    private var lastWatch = DispatchTime.now()
    let context: String
    let workers: Int
    let policy: StreamCommand.IssuePolicy
    let output: OutputBuffer
    let rejects: OutputBuffer
    let showProgress: Bool
    private(set) var counts = Counts()
    private(set) var stopReason: StopReason?
    private var lastProgress = DispatchTime.now()
    private var progressShown = false

    static let chunkSize = 256

    init(
        mapper: Mapper, compiled: CompiledContext, reloader: CatalogReloader?, context: String, workers: Int,
        policy: StreamCommand.IssuePolicy,
        output: OutputBuffer, rejects: OutputBuffer, showProgress: Bool
    ) {
        self.mapper = mapper
        self.compiled = compiled
        self.reloader = reloader
        self.context = context
        self.workers = workers
        self.policy = policy
        self.output = output
        self.rejects = rejects
        self.showProgress = showProgress
    }

    /// Reads and maps every record of one input, until its end, a stop signal or a failure.
    mutating func consume(_ reader: LineReader, file: String?, stop: StopSignal) {
        var line = 0
        var chunk: [Record] = []
        let stopped = { stop.raisedSignal != nil }
        while stopReason == nil {
            chunk.removeAll(keepingCapacity: true)
            while chunk.count < Self.chunkSize, let item = reader.next(wait: chunk.isEmpty, stop: stopped) {
                line += 1
                switch item {
                case .line(let bytes):
                    if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                    chunk.append(Record(file: file, line: line, bytes: bytes))
                case .tooLong(let head):
                    chunk.append(
                        Record(
                            file: file, line: line, bytes: head,
                            unreadable: ("line too long", "the line is longer than \(LineReader.maximumLine) bytes")))
                case .partial(let bytes):
                    chunk.append(
                        Record(
                            file: file, line: line, bytes: bytes,
                            unreadable: ("incomplete line", "the stream stopped before the end of this line")))
                }
            }
            if chunk.isEmpty {
                if let number = stop.raisedSignal { stopReason = .signal(number) }
                return
            }
            reloadIfAsked(stop)
            // After a signal the reader still hands over every line already buffered, then the
            // unfinished rest, then nil: records in flight are mapped, not dropped.
            handle(chunk)
        }
    }

    /// Between chunks: with `--watch`, picks up edits (checked at most every 250 ms); on SIGHUP,
    /// reloads. A new version is swapped in only when it loads and its tests pass, and only if
    /// it still has the context; every swap and refusal is logged on stderr with its version.
    private mutating func reloadIfAsked(_ stop: StopSignal) {
        guard let reloader else { return }
        let forced = stop.takeHangup()
        let now = DispatchTime.now()
        guard forced || now.uptimeNanoseconds - lastWatch.uptimeNanoseconds >= 250_000_000 else { return }
        lastWatch = now
        switch forced ? reloader.reload() : reloader.reloadIfChanged() {
        case .unchanged:
            break
        case .swapped(let version):
            guard let compiled = version.catalog.context(context) else {
                Terminal.error(
                    "mappings stream: version \(version.number) has no context \"\(context)\"; still mapping with the previous one"
                )
                return
            }
            mapper = Mapper(catalog: version.catalog)
            self.compiled = compiled
            Terminal.error("mappings stream: now mapping with version \(version.number) (after record \(counts.read))")
        case .refused(let attempt, let reason):
            Terminal.error(
                "mappings stream: version \(attempt) refused, still mapping with version \(reloader.current.number):\n\(reason)"
            )
        }
    }

    /// Maps a chunk on the workers and writes its outcomes in order.
    private mutating func handle(_ chunk: [Record]) {
        let outcomes = map(chunk)
        for (record, outcome) in zip(chunk, outcomes) {
            counts.read += 1
            switch outcome {
            case .mapped(let text):
                output.line(text)
                counts.written += 1
            case .withIssues(let text, let issues):
                switch policy {
                case .reject:
                    reject(record, issues: issues.map(\.json))
                case .emit:
                    output.line(text)
                    counts.written += 1
                    counts.withIssues += 1
                    for issue in issues { Terminal.error("\(place(of: record)): \(issue)") }
                case .fail:
                    reject(record, issues: issues.map(\.json))
                    for issue in issues { Terminal.error("\(place(of: record)): \(issue)") }
                    stopReason = .failure
                }
            case .invalid(let kind, let message):
                counts.invalid += 1
                reject(record, issues: [.object(JSONObject([("kind", .string(kind)), ("message", .string(message))]))])
                if policy == .fail {
                    Terminal.error("\(place(of: record)): \(message)")
                    stopReason = .failure
                }
            }
            if stopReason != nil { break }
        }
        output.flush()
        rejects.flush()
        reportProgress()
    }

    private func map(_ chunk: [Record]) -> [Outcome] {
        let mapper = self.mapper
        let context = self.compiled
        guard workers > 1, chunk.count > 1 else {
            return chunk.map { Self.outcome(of: $0, mapper: mapper, context: context) }
        }
        let lanes = min(workers, chunk.count)
        return [Outcome](unsafeUninitializedCapacity: chunk.count) { buffer, initialized in
            // Each lane initializes its own elements; none is touched by two lanes.
            nonisolated(unsafe) let shared = buffer
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                for index in stride(from: lane, to: chunk.count, by: lanes) {
                    (shared.baseAddress! + index).initialize(
                        to: Self.outcome(of: chunk[index], mapper: mapper, context: context))
                }
            }
            initialized = chunk.count
        }
    }

    private static func outcome(of record: Record, mapper: Mapper, context: CompiledContext) -> Outcome {
        if let unreadable = record.unreadable { return .invalid(kind: unreadable.kind, message: unreadable.message) }
        let result: MappingResult
        do {
            result = try mapper.object(fromJSON: record.bytes, using: context)
        } catch {
            return .invalid(kind: "invalid JSON", message: "column \(error.column): \(error.message)")
        }
        var text: [UInt8] = []
        text.reserveCapacity(record.bytes.count)
        JSONWriter.write(result.value, into: &text)
        return result.issues.isEmpty ? .mapped(text) : .withIssues(text, result.issues)
    }

    private mutating func reject(_ record: Record, issues: [JSONValue]) {
        var members: [(key: String, value: JSONValue)] = []
        if let file = record.file { members.append(("file", .string(file))) }
        members.append(("line", .integer(Int64(record.line))))
        members.append(("input", .string(String(decoding: record.bytes, as: UTF8.self))))
        members.append(("issues", .array(issues)))
        rejects.line(JSONWriter.string(.object(JSONObject(members))))
        counts.rejected += 1
    }

    private func place(of record: Record) -> String {
        "\(record.file ?? "<stdin>"):\(record.line)"
    }

    private mutating func reportProgress() {
        guard showProgress else { return }
        let now = DispatchTime.now()
        guard now.uptimeNanoseconds - lastProgress.uptimeNanoseconds >= 500_000_000 else { return }
        lastProgress = now
        progressShown = true
        FileHandle.standardError.write(Data("\r\(summary)".utf8))
    }

    private var summary: String {
        var text = "mappings stream: read \(counts.read), written \(counts.written), rejected \(counts.rejected)"
        if counts.withIssues > 0 { text += " (\(counts.withIssues) written with issues)" }
        return text
    }

    /// Prints the summary; `read == written + rejected` always holds.
    func finish() {
        output.flush()
        rejects.flush()
        var text = summary
        if let stopReason { text += ", stopped by \(stopReason)" }
        FileHandle.standardError.write(Data(((progressShown ? "\r" : "") + text + "\n").utf8))
    }
}
