import CoreMetrics
import Prometheus
import Synchronization

typealias MetricCounter = CoreMetrics.Counter
typealias MetricGauge = CoreMetrics.Gauge

/// The metrics of `mappings serve` (and `stream --metrics-listen`), in a Prometheus registry of
/// their own, through swift-metrics. Every handle is made once and kept: counting a record or a
/// request looks nothing up by its name.
final class ServerMetrics: Sendable {
    enum RecordOutcome: Int, CaseIterable {
        case written, rejected, filtered
        var label: String {
            switch self {
            case .written: "written"
            case .rejected: "rejected"
            case .filtered: "filtered"
            }
        }
    }

    enum ReloadResult: Int, CaseIterable {
        case swapped, refused, unchanged
        var label: String {
            switch self {
            case .swapped: "swapped"
            case .refused: "refused"
            case .unchanged: "unchanged"
            }
        }
    }

    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    let catalogVersion: MetricGauge
    let inFlight: MetricGauge
    let requestDuration: CoreMetrics.Timer
    let luaCalls: MetricCounter
    private let reloadCounters: [MetricCounter]
    private let recordCounters = Mutex<[String: [MetricCounter]]>([:])
    private let requestCounters = Mutex<[Int: MetricCounter]>([:])

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        catalogVersion = MetricGauge(label: "mappings_catalog_version", factory: factory)
        inFlight = MetricGauge(label: "mappings_in_flight", factory: factory)
        requestDuration = CoreMetrics.Timer(label: "mappings_request_duration_seconds", factory: factory)
        luaCalls = MetricCounter(label: "mappings_lua_calls_total", factory: factory)
        reloadCounters = ReloadResult.allCases.map {
            MetricCounter(label: "mappings_reloads_total", dimensions: [("result", $0.label)], factory: factory)
        }
        abandoned = MetricCounter(label: "mappings_requests_abandoned_total", factory: factory)
        bodyTimeouts = MetricCounter(label: "mappings_request_body_timeouts_total", factory: factory)
        inFlight.record(0)
    }

    /// The counter of `context`'s records with `outcome`.
    func records(_ context: String, _ outcome: RecordOutcome) -> MetricCounter {
        let counters = recordCounters.withLock { known in
            if let found = known[context] { return found }
            let made = RecordOutcome.allCases.map {
                MetricCounter(
                    label: "mappings_records_total", dimensions: [("context", context), ("outcome", $0.label)],
                    factory: factory)
            }
            known[context] = made
            return made
        }
        return counters[outcome.rawValue]
    }

    /// The counter of answers with status `code`.
    func requests(_ code: Int) -> MetricCounter {
        requestCounters.withLock { known in
            if let found = known[code] { return found }
            let made = MetricCounter(
                label: "mappings_requests_total", dimensions: [("code", String(code))], factory: factory)
            known[code] = made
            return made
        }
    }

    func reloads(_ result: ReloadResult) -> MetricCounter { reloadCounters[result.rawValue] }

    /// Requests whose client went away before its body was read: no answer could be sent.
    let abandoned: MetricCounter
    /// Requests whose body did not come whole within `--body-timeout` (answered 408).
    let bodyTimeouts: MetricCounter

    /// What each family counts, for its `# HELP` line (swift-metrics' factory gives none).
    static let help: [String: String] = [
        "mappings_catalog_version": "The catalog version serving (1, then one more per swap).",
        "mappings_in_flight": "Requests to /v1/map being mapped now (their bodies read).",
        "mappings_request_duration_seconds": "Time to answer a request, from its head to its answer.",
        "mappings_lua_calls_total": "Lua transformer calls made.",
        "mappings_reloads_total": "Reloads, by result: swapped, refused or unchanged.",
        "mappings_records_total": "Records mapped, by context and outcome: written, rejected or filtered.",
        "mappings_requests_total": "Requests answered, by status code.",
        "mappings_requests_abandoned_total": "Requests whose client went away before its body was read.",
        "mappings_request_body_timeouts_total": "Requests whose body did not arrive within --body-timeout (408).",
    ]

    /// The Prometheus text of every metric: each family's `# HELP` line, then its `# TYPE`
    /// line and samples.
    func exposition(luaCallsSoFar: Int) -> [UInt8] {
        syncLuaCalls(luaCallsSoFar)
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        var out: [UInt8] = []
        out.reserveCapacity(buffer.count + 1024)
        for line in buffer.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.starts(with: Array("# TYPE ".utf8)) {
                let name = String(decoding: line.dropFirst(7).prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
                if let help = Self.help[name] { out += Array("# HELP \(name) \(help)\n".utf8) }
            }
            out += line
            out.append(UInt8(ascii: "\n"))
        }
        if out.last == UInt8(ascii: "\n"), buffer.last == UInt8(ascii: "\n") { out.removeLast() }
        return out
    }

    private let reportedLuaCalls = Atomic<Int>(0)

    private func syncLuaCalls(_ total: Int) {
        let before = reportedLuaCalls.exchange(total, ordering: .relaxed)
        if total > before { luaCalls.increment(by: total - before) }
    }
}
