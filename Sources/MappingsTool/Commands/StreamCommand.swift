import ArgumentParser
import Dispatch
import Foundation
import Mappings
import MappingsEncoding
import MappingsSQL
import MappingsSpark
import MappingsStream

/// `mappings stream`: map NDJSON records one per line, keeping order, isolating bad lines.
struct StreamCommand: ParsableCommand, LoadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract: "Map NDJSON records (one JSON payload per line) and write one JSON line per record.",
        discussion: """
            Reads INPUT files in order (or stdin), maps each non-blank line with the context, and writes \
            one line of JSON per mapped record to stdout, in input order. Each line stands alone: invalid \
            JSON, a mapping issue or a failing transformer affects that line only.

            A record with issues is rejected by default: the rejects file (or stderr, without --rejects) \
            gets one JSON line {"line", "input", "issues"} for it. --on-issue emit writes it to stdout \
            anyway and its issues to stderr; --on-issue fail stops at the first one.

            At the end (end of input, SIGINT or SIGTERM) stderr gets 'mappings stream: read N, written W, \
            rejected R' (and ', filtered F' when the context's @filter dropped some, ', not processed U' \
            when some were not), with read = written + rejected + filtered + unprocessed. After SIGINT or SIGTERM, records in flight are finished within a grace period (the \
            Lua timeout plus one second); one still mapping then is rejected as "interrupted", and records \
            not started are counted as not processed.

            Memory: records between reading and writing are bounded by --max-in-flight (MiB, default 64), \
            a Lua result by --lua-max-result (MiB, default 8).

            Before the first record, the @tests of the context and of the contexts it maps nested objects \
            with must pass (every context's with --require-tests). --stats FILE gets the counts, issues by \
            kind, the version serving, the reloads and the p50/p99 time per record (rewritten every \
            --stats-interval seconds when given); --progress shows the rate on stderr.

            With --watch, edits of the .mappings files and Lua scripts are picked up while records flow \
            (SIGHUP forces a reload): the new version must load and pass those @tests within --reload-timeout \
            before it is swapped in between records; otherwise the previous version keeps serving. Each swap \
            or refusal is logged.

            --from-format csv (or an input named .csv) reads CSV rows with a header instead, each row a \
            record of the header's names; --to-format csv writes a header of the context's output \
            properties and a row per record; rejects stay JSON lines (docs/formats.md).

            --resume-from FILE:LINE (or the --stats file of the stopped run, which also checks that \
            the inputs did not change) goes on from there; --rejects then appends.

            --to sqlite:PATH or --to postgresql://USER@HOST:PORT/DB writes the records into a table \
            (--table, default the model's name in snake_case; --create-tables creates it as \
            'mappings schema --format sql' prints it) instead of stdout, in transactions of --batch \
            records (or --batch-seconds). With --job NAME each transaction also records where the \
            input stands in the table mappings_offsets: the same job started again goes on after its \
            last committed record, whatever stopped it — only in the file it stopped in, as it was (a \
            rotated file is found by its identity when given first; a last line without its line feed \
            is left for the next run); standard input with --job-input continue or new. A context with "@identity" upserts by it. \
            While the database cannot be reached, batches are tried again for --retry-for seconds \
            (docs/operations.md, "Into a database").

            Exit status: 0 every record mapped without errors (a record with warnings only is written, its \
            warnings on stderr); 1 some were rejected or had errors (or --on-issue \
            fail stopped); 2 the contexts, scripts, arguments or inputs could not be loaded (or the \
            database of --to refused them); 69 the database of --to could not be reached for \
            --retry-for seconds; 75 stopped by SIGINT or SIGTERM before the end of the input (resume \
            it where the summary and --stats say).

            Examples:
              mappings stream --context '$TweetModel' --rejects rejects.ndjson \\
                Examples/pipeline/tweets.ndjson > out.ndjson
              cat Examples/pipeline/tweets.ndjson |
                mappings stream --context '$TweetModel' --workers 2 | wc -l
              mappings stream --mappings Examples/formats/orders.mappings \\
                Examples/formats/orders.csv
            """
    )

    @OptionGroup var load: LoadOptions

    @OptionGroup var nulls: NullsOption

    @OptionGroup var strict: StrictOption

    @OptionGroup var formats: FormatOptions

    @Option(
        help: ArgumentHelp(
            "The identifier of the context to map each record with; without it, the one context the files hold.",
            valueName: "id"),
        completion: Completions.contexts)
    var context: String?

    @Option(
        help: ArgumentHelp(
            "Write rejected records here, one JSON line each with their issues (default: one line each on stderr saying why).",
            valueName: "file"), completion: .file())
    var rejects: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Map on this many threads (default: one per core); output keeps input order.", valueName: "n"))
    var workers: Int?

    /// `--workers`, or one worker per core the process may run on (at most 256).
    var workerCount: Int { workers ?? min(max(1, ProcessInfo.processInfo.activeProcessorCount), 256) }

    @Option(help: "What a record with issues does: reject (default), emit, or fail.")
    var onIssue: IssuePolicy = .reject

    @Option(help: ArgumentHelp("Write the final counts here as JSON.", valueName: "file"), completion: .file())
    var stats: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Bytes of records held between reading and writing, in MiB (beyond one record per worker).",
            valueName: "mib"))
    var maxInFlight = 64

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --watch: seconds a reload (load, compile, @tests) may take before it is refused.",
            valueName: "seconds"))
    var reloadTimeout = 10

    @Flag(help: "Show the counts so far and the records per second on stderr, up to four times a second.")
    var progress = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --stats: also write the stats file every this many seconds while streaming (atomically).",
            valueName: "seconds"))
    var statsInterval: Int?

    @Flag(
        help: """
            Refuse to start (and, with --watch, to swap a version in) unless every context's @tests pass, \
            not only those of --context and the contexts it maps nested objects with.
            """)
    var requireTests = false

    @Flag(
        help: """
            Pick up edits of the .mappings files and Lua scripts while streaming: a new version is loaded \
            and its @tests run first, then swapped in between records; a broken edit keeps the old one. \
            SIGHUP forces a reload.
            """)
    var watch = false

    @Flag(
        help: """
            Map every record with the general engine, never with the context's fast plan (the same output, \
            slower; `mappings check --explain-plan` says which contexts have a fast plan).
            """)
    var generalEngine = false

    @Option(
        name: .customLong("resume-from"), parsing: .unconditional,
        help: ArgumentHelp(
            """
            Start at line LINE of input FILE (as given; - for stdin), skipping the inputs before it: \
            where a stopped run's summary says to resume. Or the --stats file of the stopped run: \
            the same place, and the run refuses to start when an input changed since. --rejects \
            then appends.
            """, valueName: "FILE:LINE|stats"))
    var resumeFrom: String?

    @Option(
        help: ArgumentHelp(
            "Serve /metrics (Prometheus) and /healthz at HOST:PORT while the stream runs (docs/serve.md).",
            valueName: "host:port"))
    var metricsListen: String?

    @Option(
        help: ArgumentHelp(
            "Write the records into a database instead of stdout: sqlite:PATH or a postgresql:// URI.",
            valueName: "destination"))
    var to: String?

    @Option(help: ArgumentHelp("The table of --to (default: the model's name in snake_case).", valueName: "name"))
    var table: String?

    @Flag(help: "With --to: create the table (and its primary key for @identity) when it is missing.")
    var createTables = false

    @Option(
        help: ArgumentHelp(
            "With --to: keep where the input stands under this name, in mappings_offsets; the same job started again resumes there.",
            valueName: "name"))
    var job: String?

    @Option(
        help: ArgumentHelp(
            """
            With --job: what the inputs are to the job. new: new inputs, mapped from their first line. \
            continue: standard input (or the first input) goes on from where the job stopped, its first \
            line the next one. Without it, a job goes on only in the file it stopped in, as it was.
            """, valueName: "new|continue"))
    var jobInput: JobInput?

    @Option(help: ArgumentHelp("With --to: records a transaction (default 5000).", valueName: "n"))
    var batch: Int?

    @Option(help: ArgumentHelp("With --to: the longest a batch gathers (default 1).", valueName: "seconds"))
    var batchSeconds: Double?

    @Option(
        help: ArgumentHelp(
            "With --to: how long to try again while the database cannot be reached (default 60).",
            valueName: "seconds"))
    var retryFor: Int?

    @Option(
        help: ArgumentHelp(
            "With --to: write rejects into this table (created when missing), in the records' transactions.",
            valueName: "name"))
    var rejectsTable: String?

    @Flag(
        help: """
            Write binary frames for mappings_spark instead of JSON lines: each record's Spark row (the layout \
            of `schema --format spark`), reject or filtering, in input order, then the stats (docs/scale-out.md).
            """)
    var sparkFrames = false

    @Argument(
        help: ArgumentHelp("NDJSON files to read in order; stdin when none.", valueName: "input"), completion: .file())
    var inputs: [String] = []

    func validate() throws {
        if let metricsListen, ServeCommand.address(metricsListen) == nil {
            throw ValidationError(
                "--metrics-listen takes HOST:PORT, such as 127.0.0.1:9100, but got '\(metricsListen)'")
        }
        if let workers { try OptionRange(option: "--workers", range: 1...256).check(workers) }
        try OptionRange(option: "--max-in-flight", range: 1...65536, unit: "MiB").check(maxInFlight)
        try OptionRange(option: "--reload-timeout", range: 1...86400, unit: "seconds").check(reloadTimeout)
        if let resumeFrom {
            do {
                _ = try StreamRun.ResumeRequest(resumeFrom, inputs: inputs.isEmpty ? ["-"] : inputs)
            } catch {
                throw ValidationError(error.message)
            }
        }
        if sparkFrames {
            for (given, name) in [(watch, "--watch"), (rejects != nil, "--rejects"), (nulls.omit, "--omit-nulls")]
            where given {
                throw ValidationError(
                    "--spark-frames writes rejects and stats in its frames and rows of a fixed schema: drop \(name)")
            }
        }
        try validateDestination()
        if let toFormat = formats.toFormat, !toFormat.isJSONLines {
            for (given, name) in [(to != nil, "--to"), (sparkFrames, "--spark-frames")] where given {
                throw ValidationError("--to-format writes stdout: drop \(name), which writes the records elsewhere")
            }
        }
        if let statsInterval {
            guard stats != nil else { throw ValidationError("--stats-interval needs --stats FILE") }
            try OptionRange(option: "--stats-interval", range: 1...86400, unit: "seconds").check(statsInterval)
        }
    }

    func run() throws {
        // The metrics endpoint is an HTTP server: `mappings-server` runs such a stream.
        if metricsListen != nil, ServerHooks.metricsEndpoint == nil { ServerHooks.runServerProgram(for: "stream") }
        defer { load.lua.reportDroppedLogLines() }
        StreamMemory.keepBlocksOnTheHeap()
        let catalog = try load.loadCatalog()
        let context = try LoadOptions.contextIdentifier(self.context, in: catalog)
        let tests: CatalogReloader.TestScope = requireTests ? .all : .used(by: context)
        let reloader = try watch ? self.reloader(tests) : nil
        let mapper = Mapper(catalog: reloader?.current.catalog ?? catalog).strictConversions(strict.strict)
        let compiled = try LoadOptions.context(context, of: mapper)
        if reloader == nil { try StreamRun.requirePassing(tests, in: catalog) }
        let sink = try destination(catalog, compiled)
        let given = try openInputs()
        try checkFormats(of: given)
        var sources = given
        // Resuming: the inputs before the one named are skipped, and its lines before LINE (a
        // file is checked to be the one the stopped run left, then read from that line on).
        var start = StreamRun.Start()
        if let resumeFrom {
            let request = try Self.resumeRequest(resumeFrom, inputs: sources.map { $0.name ?? "-" })
            guard let index = sources.firstIndex(where: { $0.name == request.place.file }) else {
                throw ToolFailure(status: .loadFailure)
            }
            let source = sources[index]
            start =
                formats.format(of: source.name, descriptor: source.descriptor).isJSONLines
                ? try Self.start(at: request, in: sources, index: index)
                // A decoded input is read from its start again (a CSV header is needed), its
                // records up to the line skipped: its lines are the decoder's, the input's own.
                : StreamRun.Start(skipLines: request.place.line - 1)
            sources.removeFirst(index)
        } else if let sink, let stored = try jobStart(sink, in: sources) {
            start = stored.start
            sources.removeFirst(stored.index)
        }
        // The job's lock is let go of (its file removed) however the run ends.
        defer { sink?.close() }
        let rejectDescriptor = try openOutputs()
        var run = StreamRun(
            mapper: mapper, compiled: compiled, reloader: reloader, context: context, workers: workerCount,
            policy: onIssue,
            output: OutputBuffer(descriptor: STDOUT_FILENO), rejects: OutputBuffer(descriptor: rejectDescriptor),
            showProgress: progress, maxInFlight: maxInFlight << 20,
            grace: .milliseconds(load.lua.timeout) + .seconds(1), reloadTimeout: .seconds(reloadTimeout),
            scriptLog: load.lua.log, statsFile: stats.flatMap { path in statsInterval.map { (path, .seconds($0)) } },
            usesFastPlan: !generalEngine, omitNulls: nulls.omit,
            sparkRows: try sparkFrames ? sparkRows(catalog.sparkSchema(of: compiled), of: context) : nil, sink: sink)
        run.resumesByJob = job != nil
        run.showsLoadWarnings = !load.lua.quiet
        run.rejectsSummarized = rejects == nil
        run.board = try startMetricsEndpoint(context)
        run.outputEncoder = try formats.encoder(for: compiled, in: catalog, command: "stream").map {
            OutputEncoding(format: formats.toFormat?.rawValue ?? "", $0)
        }
        run.startOutput()
        let unreadable = read(sources, into: &run, from: start)
        run.fingerprint(given)
        run.finish()
        try finish(run, unreadable: unreadable, start: start)
    }

    /// `--watch`'s reloader, or exit 2 with the load's diagnostics.
    func reloader(_ tests: CatalogReloader.TestScope) throws -> CatalogReloader {
        do {
            return try CatalogReloader(
                paths: load.mappingsPaths, traits: load.traits, tests: tests, maxTableMemory: load.maxTableMemory << 20
            ) { [load] in
                load.transformers
            }
        } catch {
            Terminal.diagnostics(error)
            throw ToolFailure(status: .loadFailure)
        }
    }

    /// Each input's format has a decoder here (exit 2 before the first record when one has
    /// not); `--job` follows JSON lines only (its positions are byte offsets of the input).
    func checkFormats(of inputs: [(name: String?, descriptor: Int32)]) throws {
        for input in inputs {
            let format = formats.format(of: input.name, descriptor: input.descriptor)
            _ = try formats.decoder(format, for: input.name, command: "stream")
            if job != nil, !format.isJSONLines {
                Terminal.error(
                    "error: mappings stream --job: \(input.name ?? "<stdin>") is \(format.rawValue): a job follows JSON lines inputs only (its place is a byte offset of the input); use --resume-from with the run's place instead"
                )
                throw ToolFailure(status: .loadFailure)
            }
        }
    }

    /// The inputs, opened in order (standard input when none is named).
    func openInputs() throws -> [(name: String?, descriptor: Int32)] {
        var sources: [(name: String?, descriptor: Int32)] = []
        for path in inputs {
            do {
                sources.append((path, try InputFile.open(path)))
            } catch {
                throw InputFile.unreadable(error, path: path, what: "the input")
            }
        }
        return sources.isEmpty ? [(nil, STDIN_FILENO)] : sources
    }

    /// Where rejects go: `--rejects`' file (a resumed run adds to the runs' before it), else
    /// stderr. The stats file is checked to be writable then, before the first record, so that
    /// one that cannot be written is exit 2 with nothing on stdout.
    func openOutputs() throws -> Int32 {
        var descriptor = STDERR_FILENO
        if let rejects {
            do {
                descriptor = try OutputFile.open(rejects, appending: resumeFrom != nil)
            } catch {
                throw OutputFile.unwritable(error, path: rejects, what: "the rejects file")
            }
        }
        if let stats {
            do {
                try OutputFile.checkReplaceable(stats)
            } catch {
                throw OutputFile.unwritable(error, path: stats, what: "the stats file")
            }
        }
        return descriptor
    }

    /// `--spark-frames`' row encoder for the context's Spark schema, or exit 2 when a type has no row layout.
    func sparkRows(_ schema: JSONValue, of context: String) throws -> SparkRowEncoder {
        guard let encoder = SparkRowEncoder(schema: schema) else {
            Terminal.error("mappings stream: the Spark schema of \(context) has a type --spark-frames cannot write")
            throw ToolFailure(status: .loadFailure)
        }
        return encoder
    }

    /// With `--metrics-listen`: the board the endpoint shows, once it listens; exit 2 when it cannot.
    func startMetricsEndpoint(_ context: String) throws -> StreamBoard? {
        guard let metricsListen, let (host, port) = ServeCommand.address(metricsListen) else { return nil }
        let board = StreamBoard()
        do {
            try ServerHooks.metricsEndpoint?(host, port, context, board)
        } catch {
            Terminal.error("mappings stream: cannot serve metrics on \(metricsListen): \(error)")
            throw ToolFailure(status: .loadFailure)
        }
        return board
    }

    /// Streams `sources` in order until the end or a stop; returns why an input could not be read.
    func read(
        _ sources: [(name: String?, descriptor: Int32)], into run: inout StreamRun, from start: StreamRun.Start
    ) -> ToolFailure? {
        let stop = StopSignal()
        for (index, source) in sources.enumerated() {
            guard run.stopReason == nil else {
                // Stopped at the end of an input: the next one is where to start again.
                run.noteResume(atStartOf: source.name)
                break
            }
            let first = index == 0 ? start : StreamRun.Start()
            // Several lanes read a regular file themselves (a range each); a pipe, one lane, or
            // standard input skipping to where a run resumes keep the one reader.
            // A run another goes on from leaves the last input's last line without its line feed
            // for that run (an input followed by another is whole).
            let format = formats.format(of: source.name, descriptor: source.descriptor)
            let reader = BlockReader(
                descriptor: source.descriptor, blockSize: run.blockSize, startingAt: first.offset,
                lanesRead: workerCount > 1 && first.skipLines == 0,
                waitsForLineEnd: (job != nil || resumeFrom != nil) && index == sources.count - 1,
                decoder: try? formats.decoder(format, for: source.name, command: "stream"))
            run.consume(reader, file: source.name, stop: stop, from: first)
            if let failure = reader.failure {
                return InputFile.unreadable(failure, path: source.name, what: "the input")
            }
            if let failure = reader.formatFailure {
                return FormatOptions.unreadable(failure, format: format, path: source.name, command: "stream")
            }
        }
        return nil
    }

    /// The stats file, then the exit status: 2 for an unreadable input or a resume past the end
    /// of stdin, 75 for a stop before the end, 1 for rejects or records written with issues.
    func finish(_ run: StreamRun, unreadable: ToolFailure?, start: StreamRun.Start) throws {
        if let stats {
            do {
                try run.writeStats(to: stats)
            } catch {
                throw OutputFile.unwritable(error, path: stats, what: "the stats file")
            }
        }
        if let unreadable { throw unreadable }
        if let failure = run.sinkFailure {
            Terminal.error("error: --to: \(failure.message)")
            throw ToolFailure(status: failure.unavailable ? .destinationUnavailable : .loadFailure)
        }
        if case .destination(let message) = run.stopReason {
            // `--to-format` could not write a record.
            Terminal.error("error: \(message)")
            throw ToolFailure(status: .loadFailure)
        }
        if let lines = run.inputEndedBeforeResume, let resumeFrom {
            Terminal.error(
                "error: --resume-from \(resumeFrom): standard input ended after \(lines) lines, before line \(start.skipLines + 1): nothing was mapped"
            )
            throw ToolFailure(status: .loadFailure)
        }
        // Stopped before the end of its input: a status of its own, so that a scheduler can tell
        // "resume me" from "done" without reading stderr.
        if case .signal = run.stopReason, run.resume != nil { throw ToolFailure(status: .stopped) }
        if run.counts.rejected > 0 || run.counts.withIssues > 0 { throw ToolFailure(status: .issues) }
    }

    /// `--resume-from`'s request, or exit 2 with its refusal.
    static func resumeRequest(_ argument: String, inputs: [String]) throws -> StreamRun.ResumeRequest {
        do {
            return try StreamRun.ResumeRequest(argument, inputs: inputs)
        } catch {
            Terminal.error("error: \(error.message)")
            throw ToolFailure(status: .loadFailure)
        }
    }

    /// Where the input `request` names starts: a file is read from the line's offset once it is
    /// known to have the line (and, from a stats file, to be the file the stopped run left: the
    /// same bytes before the line, no shorter, the inputs before it the same size); standard
    /// input skips its lines up to it. Exit 2, saying what it found, when it does not fit.
    static func start(
        at request: StreamRun.ResumeRequest, in sources: [(name: String?, descriptor: Int32)], index: Int
    ) throws -> StreamRun.Start {
        let place = request.place
        let name = place.file ?? "-"
        func refuse(_ why: String) -> ToolFailure {
            Terminal.error("error: \(request.origin ?? "--resume-from \(request.statsFile ?? place.argument)"): \(why)")
            return ToolFailure(status: .loadFailure)
        }
        for earlier in sources[..<index] {
            guard let file = earlier.name, let recorded = request.sizes[file],
                let size = InputFingerprint.size(of: earlier.descriptor), size != recorded
            else { continue }
            throw refuse(
                "\(file), an input before \(name), is \(size) bytes now and was \(recorded) when the run stopped: what changed in it would be skipped"
            )
        }
        let descriptor = sources[index].descriptor
        guard let size = InputFingerprint.size(of: descriptor) else {
            return StreamRun.Start(skipLines: place.line - 1)
        }
        switch try verify(place, in: descriptor, named: name) {
        case .success(let start):
            if let file = place.file, let recorded = request.sizes[file], size < recorded {
                throw refuse(
                    "\(name) is not the file the stopped run read: it is \(size) bytes now and was \(recorded) when the run stopped (truncated since?)"
                )
            }
            return start
        case .failure(let mismatch): throw refuse(mismatch.reason)
        }
    }

    /// Why a file is not where a run stopped in it.
    struct Mismatch: Error {
        var reason: String
    }

    /// Where `place` starts in the regular file open at `descriptor` (which is left there), when
    /// the file has the line at the offset and with the checksum before it that `place` gives;
    /// else why not. Throws when the file cannot be read.
    static func verify(_ place: StreamRun.Resume, in descriptor: Int32, named name: String) throws
        -> Result<StreamRun.Start, Mismatch>
    {
        let changed = "\(name) is not the file the stopped run read"
        var found: InputFingerprint.LineStart
        do {
            found = try InputFingerprint.lineStart(place.line, of: descriptor)
            // The end of a file read to its end by an earlier version (whose last line had no line
            // end) is no line of it: reading starts there, and finds what was appended since.
            if case .pastEnd = found, let offset = place.offset, offset == InputFingerprint.size(of: descriptor) {
                found = .found(try InputFingerprint.prefix(offset, of: descriptor))
            }
        } catch {
            throw InputFile.unreadable(error, path: place.file, what: "the input")
        }
        switch found {
        case .pastEnd(let lines):
            return .failure(
                Mismatch(
                    reason:
                        "\(name) has \(lines) line\(lines == 1 ? "" : "s"): line \(place.line) is past its end (was it truncated or replaced since the run stopped?)"
                ))
        case .found(let prefix):
            if let offset = place.offset, offset != prefix.offset {
                return .failure(
                    Mismatch(
                        reason:
                            "\(changed): line \(place.line) starts at byte \(prefix.offset) now, at byte \(offset) when the run stopped"
                    ))
            }
            if let digest = place.digest, digest != prefix.digest {
                return .failure(
                    Mismatch(
                        reason:
                            "\(changed): its \(prefix.offset) bytes before line \(place.line) differ from those the stopped run read (checksum \(prefix.digest) now, \(digest) then)"
                    ))
            }
            guard lseek(descriptor, off_t(prefix.offset), SEEK_SET) == off_t(prefix.offset) else {
                throw InputFile.unreadable(InputFile.Failure(errno: errno), path: place.file, what: "the input")
            }
            return .success(StreamRun.Start(offset: prefix.offset, linesBefore: place.line - 1, prefix: prefix))
        }
    }
}
