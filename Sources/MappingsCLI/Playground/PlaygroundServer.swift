import Foundation
import HTTPTypes
import Hummingbird
import Mappings
import NIOCore

/// The routes of `mappings playground`: the page, and the small API it calls.
///
/// It runs Lua, so it is a local tool: a request whose `Host` is neither the listening address
/// nor `localhost` is refused (a page of another site that a DNS name points at this address
/// cannot read it), as is a `POST` whose `Origin` is another site's; no CORS header is ever sent.
struct PlaygroundServer: Sendable {
    let session: PlaygroundSession
    /// The host name the server listens on (`127.0.0.1`, `::1`, `0.0.0.0`…).
    let host: String
    /// The largest request body.
    let maxBody = 8 << 20

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: HostCheck(listening: host))
        router.get("/") { _, _ in
            MappingServer.response(200, contentType: "text/html; charset=utf-8", body: Array(PlaygroundPage.html.utf8))
        }
        router.get("api/state") { _, _ in
            let state = await MappingServer.offload { session.state() }
            return Self.json(200, state)
        }
        router.post("api/run") { request, _ in
            guard let body = try await Self.body(request, limit: maxBody) else {
                return Self.json(400, ["error": "the request is not a JSON object"])
            }
            let context = body["context"]?.stringValue
            let payload = body["payload"]?.stringValue ?? ""
            let edits = Self.edits(body["files"])
            let answer = await MappingServer.offload { session.run(context: context, edits: edits, payload: payload) }
            return Self.json(200, answer)
        }
        router.post("api/save") { request, _ in
            guard session.writes else {
                return Self.json(
                    403,
                    ["error": "edits stay in the page: start the playground with --write to save them to the files"])
            }
            guard let body = try await Self.body(request, limit: maxBody) else {
                return Self.json(400, ["error": "the request is not a JSON object"])
            }
            let edits = Self.edits(body["files"])
            switch await MappingServer.offload({ session.save(edits) }) {
            case .written(let paths):
                return Self.json(200, ["saved": .array(paths.map { .string($0) })])
            case .refused(let diagnostics):
                return Self.json(
                    409,
                    [
                        "error": "the edits do not load: nothing was saved",
                        "diagnostics": .array(diagnostics.map { PlaygroundSession.json($0, severity: "error") }),
                    ])
            case .unknownFile(let path):
                return Self.json(403, ["error": .string("\(path) is not a file of this playground: not saved")])
            }
        }
        return router
    }

    /// The body as a JSON object, or `nil` when it is none (or larger than `limit`).
    static func body(_ request: Request, limit: Int) async throws -> JSONObject? {
        guard let buffer = try? await request.body.collect(upTo: limit),
            case .object(let object)? = try? JSONValue(parsing: Array(buffer.readableBytesView))
        else { return nil }
        return object
    }

    /// `{"path": "text", …}` as edits.
    static func edits(_ value: JSONValue?) -> [String: String] {
        guard case .object(let files)? = value else { return [:] }
        var edits: [String: String] = [:]
        for (path, text) in files.members { if case .string(let text) = text { edits[path] = text } }
        return edits
    }

    static func json(_ status: Int, _ value: JSONValue) -> Response {
        MappingServer.response(status, contentType: "application/json", body: Array(JSONWriter.string(value).utf8))
    }
}

/// Refuses a request whose `Host` is not the listening address or `localhost` (421), and a
/// `POST` from a page of another origin (403).
struct HostCheck<Context: RequestContext>: RouterMiddleware {
    let listening: String

    /// The host of a `Host` or `Origin` value (`http://localhost:4195` → `localhost`).
    static func hostName(_ value: String) -> String {
        var text = Substring(value)
        if let scheme = text.range(of: "://") { text = text[scheme.upperBound...] }
        if text.hasPrefix("[") {
            return String(text.dropFirst().prefix { $0 != "]" }).lowercased()
        }
        return String(text.prefix { $0 != ":" && $0 != "/" }).lowercased()
    }

    /// Whether `name` may address this server: the listening host, `localhost`, or, when it
    /// listens on every address, any IP address (never a DNS name).
    func allows(_ name: String) -> Bool {
        if name == "localhost" || name == listening.lowercased() { return true }
        let everywhere = listening == "0.0.0.0" || listening == "::"
        return everywhere && (name.contains(":") || name.allSatisfy { $0.isNumber || $0 == "." })
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let host = request.head.authority ?? ""
        guard allows(Self.hostName(host)) else {
            return PlaygroundServer.json(
                421,
                [
                    "error": .string(
                        "the playground answers requests for \(listening) or localhost, not \"\(host)\"")
                ])
        }
        if request.method == .post, let origin = request.headers[.origin], !allows(Self.hostName(origin)) {
            return PlaygroundServer.json(403, ["error": .string("a page of \(origin) may not use the playground")])
        }
        return try await next(request, context)
    }
}

extension JSONObject {
    fileprivate subscript(key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }
}

extension JSONValue {
    fileprivate var stringValue: String? {
        if case .string(let string) = self { string } else { nil }
    }
}
