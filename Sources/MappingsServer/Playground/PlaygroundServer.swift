import Foundation
import HTTPTypes
import Hummingbird
import Mappings
import MappingsWorkspace
import NIOCore
import Synchronization

/// The routes of `mappings playground`: the page, and the small API it calls.
///
/// It runs Lua and may write files, so it is a local tool that answers its own page only: a
/// request whose `Host` is not exactly the listening address (or `localhost`) with the
/// listening port is refused (a page of another site that a DNS name points at this address
/// cannot read it), as is one whose `Origin`, when it has one, is not the page's own origin
/// (scheme, host and port: a page on another local port or scheme cannot save files or run
/// Lua, even with a body that needs no preflight), or, without an `Origin`, one that changes
/// state and whose browser says it comes from another site (`Sec-Fetch-Site`); no CORS header
/// is ever sent. A head that says its body will not be read is answered at once (`FramingCheck`).
struct PlaygroundServer: Sendable {
    let session: PlaygroundSession
    /// The host name the server listens on (`127.0.0.1`, `::1`, `0.0.0.0`…), and the port it
    /// is bound to (known once it listens).
    let host: String
    let port: BoundPort
    /// What a client is granted: bodies up to 8 MiB, the tool's timeouts.
    let limits: HTTPLimits

    /// The port the server is bound to: set once it listens (port 0 asks for any).
    final class BoundPort: Sendable {
        private let value = Atomic<Int>(0)
        func set(_ port: Int) { value.store(port, ordering: .relaxed) }
        var current: Int { value.load(ordering: .relaxed) }
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: FramingCheck(limits: limits))
        router.add(middleware: HostCheck(listening: host, port: port))
        router.get("/") { _, _ in
            MappingServer.response(200, contentType: "text/html; charset=utf-8", body: Array(PlaygroundPage.html.utf8))
        }
        router.get("api/state") { _, _ in
            let state = await MappingServer.offload { session.state() }
            return Self.json(200, state)
        }
        router.post("api/run") { request, _ in
            let body: JSONObject
            switch await Self.body(request, limits: limits) {
            case .success(let object): body = object
            case .failure(let refusal): return refusal.response
            }
            let context = body["context"]?.stringValue
            let payload = body["payload"]?.stringValue ?? ""
            let edits = Self.edits(body["files"])
            // A new project the page holds alone: its files, none on disk.
            if body["project"] == .bool(true) {
                let answer = await MappingServer.offload {
                    session.run(project: edits, context: context, payload: payload)
                }
                return Self.json(200, answer)
            }
            let answer = await MappingServer.offload { session.run(context: context, edits: edits, payload: payload) }
            return Self.json(200, answer)
        }
        // `mappings init` on the page's payload: a new project, which the page then edits alone.
        router.post("api/new") { request, _ in
            let body: JSONObject
            switch await Self.body(request, limits: limits) {
            case .success(let object): body = object
            case .failure(let refusal): return refusal.response
            }
            let payload = body["payload"]?.stringValue ?? ""
            let model = body["model"]?.stringValue ?? "Record"
            // The name becomes the context file's path (`contexts/NAME.mappings`): only a model name.
            if let problem = InferredNames.problem(withModelName: model) {
                return Self.json(400, ["error": .string("model: \(problem)")])
            }
            let answer = await MappingServer.offload { session.newProject(from: payload, model: model) }
            if case .object(let object) = answer, object["error"] != nil { return Self.json(422, answer) }
            return Self.json(200, answer)
        }
        router.post("api/save") { request, _ in
            guard session.writes else {
                return Self.json(
                    403,
                    ["error": "edits stay in the page: start the playground with --write to save them to the files"])
            }
            let body: JSONObject
            switch await Self.body(request, limits: limits) {
            case .success(let object): body = object
            case .failure(let refusal): return refusal.response
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

    /// Why a request's body was not taken: its answer.
    struct Refusal: Error {
        var response: Response
    }

    /// The body as a JSON object; a body too large (`413`), too slow (`408`), framed wrongly
    /// or not a JSON object (`400`) is refused, the first three closing the connection.
    static func body(_ request: Request, limits: HTTPLimits) async -> Result<JSONObject, Refusal> {
        let read = await limits.readBody(request)
        guard case .body(let bytes) = read else {
            let refusal = limits.refusal(read) ?? (400, "the request's body did not come", "send it again")
            var response = json(refusal.status, ["error": .string(refusal.message), "help": .string(refusal.help)])
            response.headers[.connection] = "close"
            return .failure(Refusal(response: response))
        }
        guard case .object(let object)? = try? JSONValue(parsing: bytes) else {
            return .failure(Refusal(response: json(400, ["error": "the request is not a JSON object"])))
        }
        return .success(object)
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

/// Refuses a request whose `Host` is not exactly one of this server's names with its port (421),
/// one whose `Origin`, when present, is not the page's own origin (403), and one without an
/// `Origin` that changes state (neither `GET` nor `HEAD`) from another site by its browser's
/// word, `Sec-Fetch-Site: cross-site` or `same-site` (403; another port of this host is the
/// same site, not the same origin).
struct HostCheck<Context: RequestContext>: RouterMiddleware {
    let listening: String
    let port: PlaygroundServer.BoundPort

    /// `host:port` (`[::1]:4195` for IPv6) as its lowercased host and its port; `nil` for
    /// anything else (no port, a path, a user, spaces, an empty host).
    static func authority(_ value: Substring) -> (host: String, port: Int)? {
        let text = String(value)
        let host: Substring
        let rest: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            rest = text[text.index(after: close)...]
        } else {
            guard let colon = text.firstIndex(of: ":") else { return nil }
            host = text[..<colon]
            rest = text[colon...]
            if host.contains(":") { return nil }
        }
        guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), String(port) == rest.dropFirst(), port > 0,
            !host.isEmpty,
            host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" })
        else { return nil }
        return (host.lowercased(), port)
    }

    /// Whether `name` may address this server: the listening host, `localhost`, or, when it
    /// listens on every address, any IP address (never a DNS name).
    func allows(_ name: String) -> Bool {
        if name == "localhost" || name == listening.lowercased() { return true }
        let everywhere = listening == "0.0.0.0" || listening == "::"
        return everywhere && (name.contains(":") || name.allSatisfy { $0.isNumber || $0 == "." })
    }

    /// The `Sec-Fetch-Site` a browser sent, lowercased; `nil` without one.
    static func fetchSite(_ fields: HTTPFields) -> String? {
        HTTPField.Name("Sec-Fetch-Site").flatMap { fields[$0] }.map { DiagnosticRenderer.printable($0.lowercased()) }
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let given = request.head.authority ?? ""
        let bound = port.current
        // One Host only: the first became the authority, a second would stay among the fields.
        let repeated = HTTPField.Name("Host").map { !request.headers[values: $0].isEmpty } ?? false
        guard !repeated, let host = Self.authority(Substring(given)), allows(host.host), host.port == bound else {
            let what = repeated ? "a request with two Host headers" : "\"\(DiagnosticRenderer.printable(given))\""
            return PlaygroundServer.json(
                421,
                [
                    "error": .string(
                        "the playground answers requests for \(listening):\(bound) or localhost:\(bound), not \(what)")
                ])
        }
        let origins = request.headers[values: .origin]
        if origins.isEmpty, request.method.changesState, let site = Self.fetchSite(request.headers),
            site == "cross-site" || site == "same-site"
        {
            return PlaygroundServer.json(
                403,
                [
                    "error": .string(
                        "a request of another site (Sec-Fetch-Site: \(site)) may not use the playground: only its own page may"
                    )
                ])
        }
        if !origins.isEmpty {
            let own = "http://" + given.lowercased()
            guard origins.count == 1, origins[0].lowercased() == own else {
                let shown = DiagnosticRenderer.printable(origins.joined(separator: ", "))
                return PlaygroundServer.json(
                    403,
                    ["error": .string("a page of \(shown) may not use the playground: only its own page (\(own)) may")])
            }
        }
        return try await next(request, context)
    }
}

extension HTTPRequest.Method {
    /// Whether a request of this method may change state: all but the reads (`GET`, `HEAD`,
    /// `OPTIONS`), so that a method a route takes later is guarded.
    var changesState: Bool {
        self != .get && self != .head && self != .options
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
