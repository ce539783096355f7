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
    /// The largest body `/v1/map` reads; a larger one is `413`.
    let maxBody: Int
    /// Set once SIGTERM (or SIGINT) asked the server to stop: `/readyz` then says 503.
    let draining = DrainFlag()

    final class DrainFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        func set() { flag.store(true, ordering: .relaxed) }
        var isSet: Bool { flag.load(ordering: .relaxed) }
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: CountingMiddleware(metrics: service.metrics))
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
            switch outcome {
            case .swapped(let version):
                return Self.answer(.json(200, ["result": "swapped", "version": .integer(Int64(version.number))]))
            case .unchanged:
                let version = Int64(service.reloader.current.number)
                return Self.answer(.json(200, ["result": "unchanged", "version": .integer(version)]))
            case .refused(let attempt, let reason):
                return Self.answer(
                    .json(
                        409,
                        [
                            "result": "refused", "attempt": .integer(Int64(attempt)),
                            "version": .integer(Int64(service.reloader.current.number)), "error": .string(reason),
                        ]))
            }
        }
        router.post("v1/map/:context") { request, context in
            try await map(request, context: context)
        }
        return router
    }

    private func map(_ request: Request, context: BasicRequestContext) async throws -> Response {
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
        let raw = context.parameters.get("context") ?? ""
        let name = raw.removingPercentEncoding ?? raw
        let query = request.uri.queryParameters
        let key = MappingService.Key(
            context: name, omitNulls: Self.flag(query.get("omitNulls")), strict: Self.flag(query.get("strict")))
        let records: RecordMapper
        switch service.recordMapper(key) {
        case .success(let found): records = found
        case .failure(let error):
            let diagnostic = error.diagnostics.first
            return Self.answer(
                .error(404, diagnostic?.message ?? "no context named \"\(name)\"", help: diagnostic?.help))
        }
        let contentType = request.headers[.contentType]?.lowercased() ?? "application/json"
        let lines =
            contentType.contains("ndjson") || contentType.contains("jsonl") || contentType.contains("json-lines")
        guard lines || contentType.contains("json") else {
            return Self.answer(
                .error(
                    415, "a body of type \"\(contentType)\" is not mapped",
                    help: "send application/json (one payload) or application/x-ndjson (one per line)"))
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBody)
        } catch {
            return Self.answer(
                .error(
                    413, "the body is larger than \(maxBody) bytes", help: "raise --max-body, or send smaller bodies"))
        }
        let body = Array(buffer.readableBytesView)
        let answer = await Self.offload {
            lines ? service.mapLines(body, with: records) : service.mapOne(body, with: records)
        }
        return Self.answer(answer)
    }

    /// Runs mapping away from the threads that serve connections and tasks: a record may call
    /// a transformer that runs up to its deadline.
    static func offload<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }

    static func flag(_ value: String?) -> Bool {
        guard let value else { return false }
        return value.isEmpty || value == "true" || value == "1"
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
            metrics.requests(code).increment()
            let elapsed = ContinuousClock.now - start
            metrics.requestDuration.recordNanoseconds(
                elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        }
        do {
            let response = try await next(request, context)
            code = response.status.code
            return response
        } catch let error as any HTTPResponseError {
            code = error.status.code
            throw error
        } catch {
            code = 500
            throw error
        }
    }
}

/// Reloads on SIGHUP and, with `--watch`, when a file changes (checked every second); marks the
/// server as draining when the group shuts down.
struct ReloadService: Service {
    let service: MappingService
    let watch: Bool
    let draining: MappingServer.DrainFlag

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in signals.cancelOnGracefulShutdown() {
                        _ = await MappingServer.offload { service.reload(onlyIfChanged: false) }
                    }
                }
                if watch {
                    group.addTask {
                        while !Task.isCancelled && !Task.isShuttingDownGracefully {
                            try? await Task.sleep(for: .seconds(1))
                            if Task.isShuttingDownGracefully { break }
                            _ = await MappingServer.offload { service.reload(onlyIfChanged: true) }
                        }
                    }
                }
                await group.waitForAll()
            }
        } onGracefulShutdown: {
            draining.set()
        }
    }
}
