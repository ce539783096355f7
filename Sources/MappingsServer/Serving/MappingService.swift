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
    /// Where reloads and cut requests are told.
    let say: Servers.Say

    /// The record mappers made for the version serving, by context and options.
    private let mappers: Mutex<(version: Int, mapper: Mapper, records: [Key: RecordMapper])>

    struct Key: Hashable {
        let context: String
        let omitNulls: Bool
        let strict: Bool
    }

    init(reloader: CatalogReloader, metrics: ServerMetrics, workers: Int, maxInFlight: Int, say: @escaping Servers.Say)
    {
        self.reloader = reloader
        self.say = say
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

    /// Reloads (`POST /v1/reload`, SIGHUP, or a change `--watch` saw), counting the outcome: a
    /// forced reload that finds the files of the version serving says so, and takes no number.
    func reload(onlyIfChanged: Bool) -> CatalogReloader.Outcome {
        let outcome = onlyIfChanged ? reloader.reloadIfChanged() : reloader.reload()
        switch outcome {
        case .swapped(let version):
            metrics.reloads(.swapped).increment()
            metrics.catalogVersion.record(Int64(version.number))
            say("mappings serve: now serving version \(version.number)")
        case .refused(let reason):
            metrics.reloads(.refused).increment()
            say(
                "mappings serve: a reload was refused, version \(reloader.current.number) keeps serving:\n\(reason)")
        case .unchanged:
            if !onlyIfChanged {
                metrics.reloads(.unchanged).increment()
                say(
                    "mappings serve: reloaded: nothing changed, version \(reloader.current.number) keeps serving")
            }
        }
        return outcome
    }

    // MARK: Requests in flight

    /// A request being answered: what a drain that runs out of time says it cut.
    struct Ongoing: Sendable {
        var target: String
        var started: ContinuousClock.Instant
        /// The body's size once read (`nil` while it is read).
        var bodyBytes: Int?
    }

    private let ongoing = Mutex<(next: Int, requests: [Int: Ongoing])>((0, [:]))

    /// Notes a request from its head on; returns its number for `read` and `ended`.
    func began(_ target: String) -> Int {
        ongoing.withLock { state in
            state.next += 1
            state.requests[state.next] = Ongoing(target: target, started: .now)
            return state.next
        }
    }

    func read(_ id: Int, bytes: Int) {
        ongoing.withLock { $0.requests[id]?.bodyBytes = bytes }
    }

    func ended(_ id: Int) {
        _ = ongoing.withLock { $0.requests.removeValue(forKey: id) }
    }

    /// The requests being answered now, oldest first.
    var requestsInFlight: [Ongoing] {
        ongoing.withLock { state in state.requests.sorted { $0.key < $1.key }.map(\.value) }
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
            var answer: JSONValue = ["issues": .array(outcome.issues.map(\.json))]
            // An array mapped as one payload, as `map` says without --many.
            if body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "[") {
                answer = [
                    "issues": .array(outcome.issues.map(\.json)),
                    "note": .string(
                        "the body is an array; to map each of its elements into \(context), add ?many=true"),
                ]
            }
            return .json(422, answer)
        case .clean, .withWarnings:
            metrics.records(context, .written).increment()
            text.append(UInt8(ascii: "\n"))
            var answer = Answer(status: 200, body: text)
            if !outcome.issues.isEmpty { answer.headers.append(("Mappings-Warnings", "\(outcome.issues.count)")) }
            return answer
        }
    }

    /// A JSON array (`?many=true`): each element mapped as one payload. `200` with the array of
    /// their objects (in order; those the context's `@filter` drops left out, counted in
    /// `Mappings-Filtered`) when none has an error; `422` with every element's issues, their
    /// paths from the array (`$[3].user.name`), when one has; `400` when the body is not JSON;
    /// `422` when it is no array.
    func mapMany(_ body: [UInt8], with records: RecordMapper) -> Answer {
        let context = records.context.identifier ?? ""
        let elements: [Range<Int>]
        switch JSONArraySpans.elements(of: body) {
        case .elements(let found): elements = found
        case .notAnArray(let what):
            metrics.records(context, .rejected).increment()
            let issue = MappingIssue(
                record: .invalidSource, message: "many=true maps a JSON array, not \(what)", context: records.context)
            return .json(422, ["issues": [issue.json]])
        case .invalid(let offset, let message):
            metrics.records(context, .rejected).increment()
            return .error(400, "the body is not JSON: byte \(offset + 1): \(message)")
        }
        var out: [UInt8] = [UInt8(ascii: "[")]
        var issues: [JSONValue] = []
        var failed = 0
        var warnings = 0
        var filtered = 0
        var written = 0
        for (index, span) in elements.enumerated() {
            var text: [UInt8] = []
            let outcome = records.map(Array(body[span]), into: &text)
            let prefix = "$[\(index)]"
            for issue in outcome.issues {
                var moved = issue
                moved.path = issue.path.hasPrefix("$") ? prefix + issue.path.dropFirst() : prefix + issue.path
                issues.append(moved.json)
            }
            switch outcome.kind {
            case .invalid:
                metrics.records(context, .rejected).increment()
                let reason = outcome.failure.map { "\($0.line):\($0.column): \($0.message)" } ?? "not JSON"
                return .error(400, "the body is not JSON: element \(index): " + reason)
            case .filtered:
                filtered += 1
            case .withErrors:
                failed += 1
            case .clean, .withWarnings:
                warnings += outcome.issues.count
                if written > 0 { out.append(UInt8(ascii: ",")) }
                out += text
                written += 1
            }
        }
        if failed > 0 {
            metrics.records(context, .rejected).increment(by: failed)
            return .json(422, ["issues": .array(issues)])
        }
        metrics.records(context, .written).increment(by: written)
        metrics.records(context, .filtered).increment(by: filtered)
        out += Array("]\n".utf8)
        var answer = Answer(status: 200, body: out)
        if warnings > 0 { answer.headers.append(("Mappings-Warnings", "\(warnings)")) }
        if filtered > 0 { answer.headers.append(("Mappings-Filtered", "\(filtered)")) }
        return answer
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
                let issues = outcome.rejectIssues(context: records.context).map(\.json)
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
