import CoreMetrics
import Hummingbird
import Mappings
import MappingsLua
import Synchronization

/// `/metrics` and `/healthz` beside a `mappings stream` (`--metrics-listen HOST:PORT`): the same
/// metrics as `mappings serve`, from the stream's counts.
struct MetricsEndpoint: Sendable {
    let context: String
    let board: StreamBoard

    func router() -> Router<BasicRequestContext> {
        let metrics = ServerMetrics()
        let totals = StreamTotals()
        let router = Router()
        router.add(middleware: CountingMiddleware(metrics: metrics))
        router.get("healthz") { _, _ in MappingServer.text(200, "ok\n") }
        router.get("metrics") { [context, board] _, _ in
            totals.sync(board, into: metrics, context: context)
            let body = metrics.exposition(luaCallsSoFar: LuaScripts.calls.load(ordering: .relaxed))
            return MappingServer.response(200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: body)
        }
        return router
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
