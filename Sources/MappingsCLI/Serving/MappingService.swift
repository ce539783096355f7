import CoreMetrics
import Foundation
import Mappings
import MappingsJSON
import Synchronization

/// What `mappings serve` answers, apart from HTTP: the catalog version serving now (through a
/// `CatalogReloader`), the record mappers of its contexts, and the counts the metrics show.
///
/// Each request takes the version serving when it starts and finishes on it, whatever a reload
/// swaps in meanwhile.
final class MappingService: Sendable {
    let reloader: CatalogReloader
    let metrics: ServerMetrics
    let workers: Int
    /// Requests being answered now, and the most that may be.
    let inFlight = Atomic<Int>(0)
    let maxInFlight: Int

    /// The record mappers made for the version serving, by context and options.
    private let mappers: Mutex<(version: Int, mapper: Mapper, records: [Key: RecordMapper])>

    struct Key: Hashable {
        let context: String
        let omitNulls: Bool
        let strict: Bool
    }

    init(reloader: CatalogReloader, metrics: ServerMetrics, workers: Int, maxInFlight: Int) {
        self.reloader = reloader
        self.metrics = metrics
        self.workers = workers
        self.maxInFlight = maxInFlight
        let version = reloader.current
        mappers = Mutex((version.number, Mapper(catalog: version.catalog), [:]))
        metrics.catalogVersion.record(Int64(version.number))
    }

    /// The record mapper of `key` in the version serving now; `nil` when it has no such context
    /// (with the message and suggestion to answer).
    func recordMapper(_ key: Key) -> Result<RecordMapper, MappingsError> {
        let version = reloader.current
        return mappers.withLock { state in
            if state.version != version.number {
                state = (version.number, Mapper(catalog: version.catalog), [:])
            }
            if let found = state.records[key] { return .success(found) }
            let mapper = state.mapper.strictConversions(key.strict)
            let context: CompiledContext
            do {
                context = try mapper.context(key.context)
            } catch let error as MappingsError {
                return .failure(error)
            } catch {
                return .failure(MappingsError(kind: .unknownName, diagnostics: [Diagnostic(message: "\(error)")]))
            }
            let records = RecordMapper(mapper: mapper, context: context, omittingNulls: key.omitNulls)
            state.records[key] = records
            return .success(records)
        }
    }

    /// Reloads (`POST /v1/reload`, SIGHUP, or a change `--watch` saw), counting the outcome.
    func reload(onlyIfChanged: Bool) -> CatalogReloader.Outcome {
        let outcome = onlyIfChanged ? reloader.reloadIfChanged() : reloader.reload()
        switch outcome {
        case .swapped(let version):
            metrics.reloads(.swapped).increment()
            metrics.catalogVersion.record(Int64(version.number))
            Terminal.error("mappings serve: now serving version \(version.number)")
        case .refused(let attempt, let reason):
            metrics.reloads(.refused).increment()
            Terminal.error(
                "mappings serve: version \(attempt) refused, version \(reloader.current.number) keeps serving:\n\(reason)"
            )
        case .unchanged:
            if !onlyIfChanged { metrics.reloads(.unchanged).increment() }
        }
        return outcome
    }

    // MARK: Mapping

    /// An answer: the status, its content type and body.
    struct Answer {
        var status: Int
        var contentType = "application/json"
        var body: [UInt8]
        var headers: [(String, String)] = []

        static func json(_ status: Int, _ value: JSONValue) -> Answer {
            Answer(status: status, body: Array((JSONWriter.string(value) + "\n").utf8))
        }

        static func error(_ status: Int, _ message: String, help: String? = nil) -> Answer {
            var members: [(key: String, value: JSONValue)] = [("error", .string(message))]
            if let help { members.append(("help", .string(help))) }
            return json(status, .object(JSONObject(members)))
        }
    }

    /// One JSON payload: `200` with what `mappings map` writes, `422` with the issues when one is
    /// an error, `204` when the context's `@filter` drops it, `400` when it is not JSON.
    func mapOne(_ body: [UInt8], with records: RecordMapper) -> Answer {
        var text: [UInt8] = []
        text.reserveCapacity(body.count + 64)
        let outcome = records.map(body, into: &text)
        let context = records.context.identifier ?? ""
        switch outcome.kind {
        case .invalid:
            metrics.records(context, .rejected).increment()
            let reason = outcome.failure.map { "\($0.line):\($0.column): \($0.message)" } ?? "not JSON"
            return .error(400, "the body is not JSON: " + reason)
        case .filtered:
            metrics.records(context, .filtered).increment()
            return Answer(status: 204, body: [])
        case .withErrors:
            metrics.records(context, .rejected).increment()
            return .json(422, ["issues": .array(outcome.issues.map(\.json))])
        case .clean, .withWarnings:
            metrics.records(context, .written).increment()
            text.append(UInt8(ascii: "\n"))
            var answer = Answer(status: 200, body: text)
            if !outcome.issues.isEmpty { answer.headers.append(("Mappings-Warnings", "\(outcome.issues.count)")) }
            return answer
        }
    }

    /// NDJSON: a line out for each record line in, in order — the mapped object, or
    /// `{"@rejected": {"line": N, "issues": [...]}}`, or `{"@filtered": {"line": N}}` — through
    /// the stream's pipeline. Blank lines are no records.
    func mapLines(_ body: [UInt8], with records: RecordMapper) -> Answer {
        let context = records.context.identifier ?? ""
        var out: [UInt8] = []
        out.reserveCapacity(body.count + body.count / 4)
        var written = 0
        var rejected = 0
        var filtered = 0
        let stream = MappingStream(records: records, workers: workers)
        stream.map(text: body) { index, output, outcome in
            let line = Int64(index + 1)
            switch outcome.kind {
            case .clean, .withWarnings:
                out += output ?? []
                written += 1
            case .filtered:
                out += Array(JSONWriter.string(["@filtered": ["line": .integer(line)]]).utf8)
                filtered += 1
            case .withErrors, .invalid:
                var issues = outcome.issues.map(\.json)
                if outcome.kind == .invalid {
                    issues = [["kind": "invalid JSON", "message": .string(outcome.invalidReason ?? "not JSON")]]
                }
                out += Array(
                    JSONWriter.string(["@rejected": ["line": .integer(line), "issues": .array(issues)]]).utf8)
                rejected += 1
            }
            out.append(UInt8(ascii: "\n"))
        }
        metrics.records(context, .written).increment(by: written)
        metrics.records(context, .rejected).increment(by: rejected)
        metrics.records(context, .filtered).increment(by: filtered)
        return Answer(status: 200, contentType: "application/x-ndjson", body: out)
    }
}
