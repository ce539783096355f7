import CoreMetrics
import Dispatch
import Foundation
import HTTPTypes
import Hummingbird
import Mappings
import MappingsLua
import NIOCore
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The routes of `mappings serve`, on a `MappingService`.
struct MappingServer: Sendable {
    let service: MappingService
    /// What a client is granted: body size, how long its head and body may take.
    let limits: HTTPLimits
    /// Set once SIGTERM (or SIGINT) asked the server to stop: `/readyz` then says 503.
    let draining = DrainFlag()

    final class DrainFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        func set() { flag.store(true, ordering: .relaxed) }
        var isSet: Bool { flag.load(ordering: .relaxed) }
    }

    /// The query parameters `/v1/map` takes, each a flag (`?omitNulls`, `=true`, `=1`; `=false`, `=0`)
    /// given at most once.
    static let options = ["many", "omitNulls", "strict"]

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: CountingMiddleware(metrics: service.metrics))
        router.add(middleware: FramingCheck(limits: limits))
        router.get("healthz") { _, _ in Self.text(200, "ok\n") }
        router.get("readyz") { _, _ in
            draining.isSet
                ? Self.text(503, "draining\n")
                : Self.text(200, "ready: version \(service.reloader.current.number)\n")
        }
        router.get("metrics") { _, _ in
            let body = service.metrics.exposition(luaCallsSoFar: LuaScripts.calls.load(ordering: .relaxed))
            return Self.response(200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: body)
        }
        router.post("v1/reload") { _, _ in
            let outcome = await Self.offload { service.reload(onlyIfChanged: false) }
            let version = JSONValue.integer(Int64(service.reloader.current.number))
            switch outcome {
            case .swapped(let swapped):
                return Self.answer(.json(200, ["result": "swapped", "version": .integer(Int64(swapped.number))]))
            case .unchanged:
                return Self.answer(.json(200, ["result": "unchanged", "version": version]))
            case .refused(let reason):
                return Self.answer(.json(409, ["result": "refused", "version": version, "error": .string(reason)]))
            }
        }
        router.post("v1/map/:context") { request, context in
            try await map(request, context: context)
        }
        return router
    }

    private func map(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = service.began("\(request.method) \(request.uri.path)")
        defer { service.ended(id) }
        let raw = context.parameters.get("context") ?? ""
        let name = raw.removingPercentEncoding ?? raw
        var flags: [String: Bool] = [:]
        for (key, value) in request.uri.queryParameters {
            let key = String(key)
            guard Self.options.contains(key) else {
                return Self.answer(
                    .error(
                        400, "unknown query parameter \"\(DiagnosticRenderer.printable(key))\"",
                        help: "/v1/map takes \(Self.options.joined(separator: ", "))"))
            }
            guard let flag = Self.flag(String(value)) else {
                return Self.answer(
                    .error(
                        400, "\(key) takes true or false, not \"\(DiagnosticRenderer.printable(String(value)))\"",
                        help: "write ?\(key)=true, or leave it out"))
            }
            // `?many=true&many=false` says two things: neither is taken.
            guard flags.updateValue(flag, forKey: key) == nil else {
                return Self.answer(
                    .error(400, "the query parameter \(key) is given more than once", help: "give ?\(key) once"))
            }
        }
        let key = MappingService.Key(
            context: name, omitNulls: flags["omitNulls"] ?? false, strict: flags["strict"] ?? false)
        let records: RecordMapper
        switch service.recordMapper(key) {
        case .success(let found): records = found
        case .failure(let error):
            let diagnostic = error.diagnostics.first
            return Self.answer(
                .error(
                    404, DiagnosticRenderer.printable(diagnostic?.message ?? "no context named \"\(name)\""),
                    help: diagnostic?.help.map(DiagnosticRenderer.printable)))
        }
        let contentType = request.headers[.contentType]?.lowercased() ?? "application/json"
        let lines =
            contentType.contains("ndjson") || contentType.contains("jsonl") || contentType.contains("json-lines")
        guard lines || contentType.contains("json") else {
            return Self.answer(
                .error(
                    415, "a body of type \"\(DiagnosticRenderer.printable(contentType))\" is not mapped",
                    help: "send application/json (one payload) or application/x-ndjson (one per line)"))
        }
        let many = flags["many"] ?? false
        if many, lines {
            return Self.answer(
                .error(
                    400, "many=true maps one JSON array, not NDJSON",
                    help: "send the array as application/json, or the records as NDJSON without many"))
        }
        // The body first: a slow or stalled client holds no mapping slot while it sends.
        let read = await limits.readBody(request)
        guard case .body(let body) = read else {
            if case .timedOut = read { service.metrics.bodyTimeouts.increment() }
            guard let refusal = limits.refusal(read) else { throw ClientGone() }
            var answer = MappingService.Answer.error(refusal.status, refusal.message, help: refusal.help)
            answer.headers.append(("Connection", "close"))
            return Self.answer(answer)
        }
        service.read(id, bytes: body.count)
        let now = service.inFlight.add(1, ordering: .relaxed).newValue
        service.metrics.inFlight.record(now)
        defer {
            let left = service.inFlight.subtract(1, ordering: .relaxed).newValue
            service.metrics.inFlight.record(left)
        }
        if now > service.maxInFlight {
            var answer = MappingService.Answer.error(
                503, "\(service.maxInFlight) requests are being answered: try again",
                help: "raise --max-in-flight, or send fewer requests at once")
            answer.headers.append(("Retry-After", "1"))
            return Self.answer(answer)
        }
        let answer = await Self.offload {
            lines
                ? service.mapLines(body, with: records)
                : many ? service.mapMany(body, with: records) : service.mapOne(body, with: records)
        }
        return Self.answer(answer)
    }

    /// The client went away before its body came whole: there is no one to answer.
    struct ClientGone: Error {}

    /// Runs mapping away from the threads that serve connections and tasks: a record may call
    /// a transformer that runs up to its deadline.
    static func offload<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }

    /// A flag's value: `true` for `""`, `true`, `1`; `false` for `false`, `0`; `nil` otherwise.
    static func flag(_ value: String) -> Bool? {
        switch value.lowercased() {
        case "", "true", "1": true
        case "false", "0": false
        default: nil
        }
    }

    static func text(_ status: Int, _ text: String) -> Response {
        response(status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    static func answer(_ answer: MappingService.Answer) -> Response {
        var response = response(answer.status, contentType: answer.contentType, body: answer.body)
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { response.headers[field] = value }
        }
        return response
    }

    static func response(_ status: Int, contentType: String, body: [UInt8]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Counts every answer by its status, and how long it took.
struct CountingMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let code: Int
        defer {
            if code != 0 { metrics.requests(code).increment() }
            let elapsed = ContinuousClock.now - start
            metrics.requestDuration.recordNanoseconds(
                elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        }
        do {
            let response = try await next(request, context)
            code = response.status.code
            return response
        } catch let error as MappingServer.ClientGone {
            // No answer reaches anyone: counted apart, not as a status.
            metrics.abandoned.increment()
            code = 0
            throw error
        } catch let error as any HTTPResponseError {
            code = error.status.code
            throw error
        } catch {
            code = 500
            throw error
        }
    }
}

/// Reloads on SIGHUP and, with `--watch`, when a file changes (looked at every second), on the
/// schedule every surface keeps (`ReloadSchedule`).
struct ReloadService: Service {
    let service: MappingService
    let watch: Bool

    func run() async throws {
        let schedule = ReloadSchedule(watchEvery: watch ? .seconds(1) : nil)
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in signals.cancelOnGracefulShutdown() { schedule.ask() }
                }
                group.addTask {
                    while !Task.isCancelled && !Task.isShuttingDownGracefully {
                        if let due = schedule.due() {
                            _ = await MappingServer.offload { service.reload(onlyIfChanged: due == .ifChanged) }
                            continue
                        }
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
                await group.waitForAll()
            }
        } onGracefulShutdown: {
        }
    }
}

/// The first service to hear SIGTERM (the group stops its services last to first): `/readyz`
/// says `503 draining` from then on, and the server still answers for `delay` (so that a load
/// balancer that polls readiness stops sending before the listener closes); then the server
/// stops accepting and finishes the requests in flight. When they are not done within
/// `timeout`, each is logged as cut, and the process ends.
struct DrainService: Service {
    let service: MappingService
    let draining: MappingServer.DrainFlag
    let delay: Duration
    let timeout: Duration

    func run() async throws {
        try? await gracefulShutdown()
        draining.set()
        Task.detached { [service, delay, timeout] in
            try? await Task.sleep(for: delay + timeout)
            let cut = service.requestsInFlight
            guard !cut.isEmpty else { return }
            let now = ContinuousClock.now
            for request in cut {
                let body = request.bodyBytes.map { "body of \($0) bytes" } ?? "body still coming"
                let took = Double((now - request.started).nanoseconds / 1_000_000) / 1000
                service.say(
                    "mappings serve: cut at the drain timeout (--drain-timeout \(timeout)): \(request.target) after \(took) s, \(body)"
                )
            }
            exit(0)
        }
        if delay > .zero { try? await Task.sleep(for: delay) }
    }
}
