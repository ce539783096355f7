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

    /// The Prometheus text of every metric.
    func exposition(luaCallsSoFar: Int) -> [UInt8] {
        syncLuaCalls(luaCallsSoFar)
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }

    private let reportedLuaCalls = Atomic<Int>(0)

    private func syncLuaCalls(_ total: Int) {
        let before = reportedLuaCalls.exchange(total, ordering: .relaxed)
        if total > before { luaCalls.increment(by: total - before) }
    }
}
