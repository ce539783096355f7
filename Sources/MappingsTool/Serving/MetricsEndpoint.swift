import CoreMetrics
import Dispatch
import Hummingbird
import Logging
import MappingsLua
import NIOCore
import Synchronization

/// The counts of a running `mappings stream`, published between blocks for its metrics endpoint
/// (`--metrics-listen`): the stream writes them, the endpoint's thread reads them.
final class StreamBoard: Sendable {
    let written = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    let filtered = Atomic<Int>(0)
    /// Read and not yet written, rejected or filtered.
    let inFlight = Atomic<Int>(0)
    let version = Atomic<Int>(1)
    let swapped = Atomic<Int>(0)
    let refused = Atomic<Int>(0)

    /// A reload the stream swapped in, or refused.
    func noteReload(swapped: Bool) {
        if swapped {
            self.swapped.add(1, ordering: .relaxed)
        } else {
            refused.add(1, ordering: .relaxed)
        }
    }

    func publish(_ counts: StreamRun.Counts, version: Int) {
        written.store(counts.written, ordering: .relaxed)
        rejected.store(counts.rejected, ordering: .relaxed)
        filtered.store(counts.filtered, ordering: .relaxed)
        inFlight.store(max(0, counts.read - counts.written - counts.rejected - counts.filtered), ordering: .relaxed)
        self.version.store(version, ordering: .relaxed)
    }
}

/// `/metrics` and `/healthz` beside a `mappings stream` (`--metrics-listen HOST:PORT`): the same
/// metrics as `mappings serve`, from the stream's counts.
enum MetricsEndpoint {
    /// Serves on a task of its own and returns once it listens; an address that cannot be bound
    /// is exit status 2, before any record is read.
    static func start(listen: String, context: String, board: StreamBoard) throws {
        guard let (host, port) = ServeCommand.address(listen) else { throw ToolFailure(status: .loadFailure) }
        let metrics = ServerMetrics()
        let totals = StreamTotals()
        let router = Router()
        router.add(middleware: CountingMiddleware(metrics: metrics))
        router.get("healthz") { _, _ in MappingServer.text(200, "ok\n") }
        router.get("metrics") { _, _ in
            totals.sync(board, into: metrics, context: context)
            let body = metrics.exposition(luaCallsSoFar: LuaScripts.calls.load(ordering: .relaxed))
            return MappingServer.response(200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: body)
        }
        var logger = Logger(label: "mappings stream")
        logger.logLevel = .critical
        let listening = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        let app = HTTPLimits().application(
            responder: router.buildResponder(), host: host, port: port,
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                Terminal.error("mappings stream: metrics on http://\(host):\(bound)/metrics")
                listening.signal()
            },
            logger: logger)
        LuaScripts.countsCalls.store(true, ordering: .relaxed)
        Task.detached {
            do {
                try await app.run()
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            listening.signal()
        }
        listening.wait()
        if let reason = failure.withLock({ $0 }) {
            Terminal.error("mappings stream: cannot serve metrics on \(listen): \(reason)")
            throw ToolFailure(status: .loadFailure)
        }
    }
}

/// What the endpoint already counted, so that each scrape adds what the stream did since.
private final class StreamTotals: Sendable {
    private let seen = Mutex<(written: Int, rejected: Int, filtered: Int, swapped: Int, refused: Int)>((0, 0, 0, 0, 0))

    func sync(_ board: StreamBoard, into metrics: ServerMetrics, context: String) {
        let now = (
            written: board.written.load(ordering: .relaxed), rejected: board.rejected.load(ordering: .relaxed),
            filtered: board.filtered.load(ordering: .relaxed), swapped: board.swapped.load(ordering: .relaxed),
            refused: board.refused.load(ordering: .relaxed)
        )
        let before = seen.withLock { seen in
            let before = seen
            seen = now
            return before
        }
        metrics.records(context, .written).increment(by: now.written - before.written)
        metrics.records(context, .rejected).increment(by: now.rejected - before.rejected)
        metrics.records(context, .filtered).increment(by: now.filtered - before.filtered)
        metrics.reloads(.swapped).increment(by: now.swapped - before.swapped)
        metrics.reloads(.refused).increment(by: now.refused - before.refused)
        metrics.catalogVersion.record(board.version.load(ordering: .relaxed))
        metrics.inFlight.record(board.inFlight.load(ordering: .relaxed))
    }
}
