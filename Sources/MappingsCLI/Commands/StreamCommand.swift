import ArgumentParser
import Dispatch
import Foundation
import Mappings

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

            Exit status: 0 every record mapped without errors (a record with warnings only is written, its \
            warnings on stderr); 1 some were rejected or had errors (or --on-issue \
            fail stopped); 2 the contexts, scripts, arguments or inputs could not be loaded.

            Examples:
              mappings stream --context '$TweetModel' --rejects rejects.ndjson \\
                Examples/pipeline/tweets.ndjson > out.ndjson
              cat Examples/pipeline/tweets.ndjson |
                mappings stream --context '$TweetModel' --workers 2 | wc -l
            """
    )

    @OptionGroup var load: LoadOptions

    @OptionGroup var nulls: NullsOption

    @OptionGroup var strict: StrictOption

    @Option(
        help: ArgumentHelp("The identifier of the context to map each record with.", valueName: "id"),
        completion: Completions.contexts)
    var context: String

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
        name: .customLong("resume-from"),
        help: ArgumentHelp(
            """
            Start at line LINE of input FILE (as given; - for stdin), skipping the inputs before it: \
            where a stopped run's summary and --stats say to resume.
            """, valueName: "FILE:LINE"))
    var resumeFrom: String?

    @Option(
        help: ArgumentHelp(
            "Serve /metrics (Prometheus) and /healthz at HOST:PORT while the stream runs (docs/serve.md).",
            valueName: "host:port"))
    var metricsListen: String?

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
            guard let resume = StreamRun.Resume(argument: resumeFrom) else {
                throw ValidationError("--resume-from takes FILE:LINE (a line number from 1), not \"\(resumeFrom)\"")
            }
            let names = inputs.isEmpty ? ["-"] : inputs
            guard names.contains(resume.file ?? "-") else {
                throw ValidationError(
                    "--resume-from names \"\(resume.file ?? "-")\", which is not an input of this stream (\(names.map { "\"\($0)\"" }.joined(separator: ", ")))"
                )
            }
        }
        if sparkFrames {
            for (given, name) in [(watch, "--watch"), (rejects != nil, "--rejects"), (nulls.omit, "--omit-nulls")]
            where given {
                throw ValidationError(
                    "--spark-frames writes rejects and stats in its frames and rows of a fixed schema: drop \(name)")
            }
        }
        if let statsInterval {
            guard stats != nil else { throw ValidationError("--stats-interval needs --stats FILE") }
            try OptionRange(option: "--stats-interval", range: 1...86400, unit: "seconds").check(statsInterval)
        }
    }

    func run() throws {
        defer { load.lua.reportDroppedLogLines() }
        StreamMemory.keepBlocksOnTheHeap()
        let catalog = try load.loadCatalog()
        let tests: CatalogReloader.TestScope = requireTests ? .all : .used(by: context)
        var reloader: CatalogReloader?
        if watch {
            do {
                reloader = try CatalogReloader(paths: load.mappingsPaths, traits: load.traits, tests: tests) { [load] in
                    load.transformers
                }
            } catch {
                Terminal.diagnostics(error)
                throw ToolFailure(status: .loadFailure)
            }
        }
        let mapper = Mapper(catalog: reloader?.current.catalog ?? catalog).strictConversions(strict.strict)
        let compiled = try LoadOptions.context(context, of: mapper)
        if reloader == nil { try StreamRun.requirePassing(tests, in: catalog) }
        var sources: [(name: String?, descriptor: Int32)] = []
        for path in inputs {
            do {
                sources.append((path, try InputFile.open(path)))
            } catch {
                throw InputFile.unreadable(error, path: path, what: "the input")
            }
        }
        if sources.isEmpty { sources = [(nil, STDIN_FILENO)] }
        // Resuming: the inputs before the one named are skipped, and its lines before LINE.
        var firstLine = 1
        if let resume = resumeFrom.flatMap(StreamRun.Resume.init(argument:)),
            let index = sources.firstIndex(where: { $0.name == resume.file })
        {
            for skipped in sources[..<index] where skipped.descriptor != STDIN_FILENO { close(skipped.descriptor) }
            sources.removeFirst(index)
            firstLine = resume.line
        }
        var rejectDescriptor = STDERR_FILENO
        if let rejects {
            do {
                rejectDescriptor = try OutputFile.open(rejects)
            } catch {
                throw OutputFile.unwritable(error, path: rejects, what: "the rejects file")
            }
        }
        if let stats {
            // Created before the first record, so that a stats file that cannot be written is
            // exit 2 with nothing on stdout, not a surprise after the whole stream went through.
            do {
                try OutputFile.checkReplaceable(stats)
            } catch {
                throw OutputFile.unwritable(error, path: stats, what: "the stats file")
            }
        }
        var sparkRows: SparkRowEncoder?
        if sparkFrames {
            guard let encoder = SparkRowEncoder(schema: catalog.outputSchema(of: compiled, as: .spark)) else {
                Terminal.error("mappings stream: the Spark schema of \(context) has a type --spark-frames cannot write")
                throw ToolFailure(status: .loadFailure)
            }
            sparkRows = encoder
        }
        let stop = StopSignal()
        var run = StreamRun(
            mapper: mapper, compiled: compiled, reloader: reloader, context: context, workers: workerCount,
            policy: onIssue,
            output: OutputBuffer(descriptor: STDOUT_FILENO), rejects: OutputBuffer(descriptor: rejectDescriptor),
            showProgress: progress, maxInFlight: maxInFlight << 20,
            grace: .milliseconds(load.lua.timeout) + .seconds(1), reloadTimeout: .seconds(reloadTimeout),
            scriptLog: load.lua.log, statsFile: stats.flatMap { path in statsInterval.map { (path, .seconds($0)) } },
            usesFastPlan: !generalEngine, omitNulls: nulls.omit, sparkRows: sparkRows)
        run.showsLoadWarnings = !load.lua.quiet
        run.rejectsSummarized = rejects == nil
        if let metricsListen {
            let board = StreamBoard()
            try MetricsEndpoint.start(listen: metricsListen, context: context, board: board)
            run.board = board
        }
        var unreadable: ToolFailure?
        for (index, source) in sources.enumerated() where unreadable == nil {
            guard run.stopReason == nil else {
                // Stopped at the end of an input: the next one is where to start again.
                run.noteResume(atStartOf: source.name)
                break
            }
            let reader = BlockReader(descriptor: source.descriptor, blockSize: run.blockSize)
            run.consume(reader, file: source.name, stop: stop, from: index == 0 ? firstLine : 1)
            if let failure = reader.failure {
                unreadable = InputFile.unreadable(failure, path: source.name, what: "the input")
            }
        }
        run.finish()
        if let stats {
            do {
                try run.writeStats(to: stats)
            } catch {
                throw OutputFile.unwritable(error, path: stats, what: "the stats file")
            }
        }
        if let unreadable { throw unreadable }
        if run.counts.rejected > 0 || run.counts.withIssues > 0 { throw ToolFailure(status: .issues) }
    }
}
