import Foundation
import Mappings
import MappingsLua
import MappingsTestSupport
import MappingsWorkspace
import Synchronization
import Testing

@testable import MappingsServer

/// `serve`'s routes and refusals, and the playground's, as the library runs them — in this
/// process, over HTTP from a real client. (integrations/serve and integrations/playground drive
/// the installed programs with Python's clients, schemathesis and a browser.)
///
/// The servers answer on Swift's concurrency pool, which the suite's tests that wait for a
/// process (builds, the tool) hold while they wait: beside them, on two cores, a request could
/// wait minutes for a thread. So these run in a test process of their own: `tools/test` runs
/// them after the suite with `MAPPINGS_IN_PROCESS_SERVERS=1`, which also runs them by hand
/// (`MAPPINGS_IN_PROCESS_SERVERS=1 swift test --filter MappingsServerTests`).
@Suite(
    "The servers' routes and refusals, in process",
    .enabled(
        if: ProcessInfo.processInfo.environment["MAPPINGS_IN_PROCESS_SERVERS"] == "1",
        "in a test process of their own: MAPPINGS_IN_PROCESS_SERVERS=1 (tools/test sets it for that run)"))
struct ServeRoutesTests {
    static let contexts = """
        { "@models": { "User": { "name": "String", "age": "Int" } },
          "$User": { "@class": "User", "name": "name", "age": "years" } }
        """

    /// `serve` on a folder holding `contexts`, for `body`; stopped after it.
    static func serving(
        _ settings: (inout TestServeSettings) -> Void = { _ in },
        _ body: (ServerHarness, URL) async throws -> Void
    ) async throws {
        let directory = try Fixtures.directory(with: ["contexts/users.mappings": contexts])
        defer { try? FileManager.default.removeItem(at: directory) }
        let reloader = try CatalogReloader(paths: [directory.appendingPathComponent("contexts").path]) {
            TransformerRegistry()
        }
        var configured = TestServeSettings(reloader: reloader)
        settings(&configured)
        let server = try await ServerHarness { [configured] say, onListening in
            Servers.serveServices(configured, say: say, onListening: onListening)
        }
        do {
            try await body(server, directory)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }

    static let json = ["Content-Type": "application/json"]

    @Test("health, readiness, one payload mapped, an issue 422, NDJSON line by line, metrics")
    func routes() async throws {
        try await Self.serving { server, _ in
            let health = try await server.request("GET", "/healthz")
            #expect(health.status == 200 && health.body == "ok\n")
            let ready = try await server.request("GET", "/readyz")
            #expect(ready.status == 200 && ready.body == "ready: version 1\n")

            let mapped = try await server.request(
                "POST", "/v1/map/%24User", body: #"{"name": "Ann", "years": 3}"#, headers: Self.json)
            #expect(mapped.status == 200)
            #expect(mapped.body == #"{"name":"Ann","age":3}"# + "\n")

            let missing = try await server.request(
                "POST", "/v1/map/%24User", body: #"{"name": "Ann"}"#, headers: Self.json)
            #expect(missing.status == 422)
            #expect(missing.body.contains(#""issues""#) && missing.body.contains("years"), "\(missing.body)")

            let lines = try await server.request(
                "POST", "/v1/map/%24User", body: "{\"name\": \"A\", \"years\": 1}\n{\"name\": \"B\"}\n",
                headers: ["Content-Type": "application/x-ndjson"])
            #expect(lines.status == 200)
            let answered = lines.body.split(separator: "\n").map(String.init)
            #expect(answered.count == 2)
            #expect(answered.first == #"{"name":"A","age":1}"#)
            #expect(answered.last?.hasPrefix(#"{"@rejected":{"line":2,"#) == true, "\(lines.body)")

            let metrics = try await server.request("GET", "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(metrics.body.contains("# TYPE"), "\(metrics.body)")
        }
    }

    @Test(
        "refusals: not JSON 400, an unknown context 404 with a suggestion, a query parameter 400, a body too large 413, a type 415"
    )
    func refusals() async throws {
        try await Self.serving({ $0.maxBody = 64 }) { server, _ in
            let invalid = try await server.request("POST", "/v1/map/%24User", body: #"{"name": }"#, headers: Self.json)
            #expect(invalid.status == 400, "\(invalid.body)")

            let unknown = try await server.request("POST", "/v1/map/%24Usr", body: "{}", headers: Self.json)
            #expect(unknown.status == 404)
            #expect(unknown.body.contains("$User"), "\(unknown.body)")

            let option = try await server.request("POST", "/v1/map/%24User?pretty=true", body: "{}", headers: Self.json)
            #expect(option.status == 400)
            #expect(option.body.contains("unknown query parameter"), "\(option.body)")

            let flag = try await server.request("POST", "/v1/map/%24User?strict=maybe", body: "{}", headers: Self.json)
            #expect(flag.status == 400)

            let large = try await server.request(
                "POST", "/v1/map/%24User", body: #"{"name": ""# + String(repeating: "x", count: 100) + #""}"#,
                headers: Self.json)
            #expect(large.status == 413, "\(large.body)")

            let type = try await server.request(
                "POST", "/v1/map/%24User", body: "name=Ann", headers: ["Content-Type": "text/plain"])
            #expect(type.status == 415)

            let many = try await server.request(
                "POST", "/v1/map/%24User?many=true", body: "{}\n", headers: ["Content-Type": "application/x-ndjson"])
            #expect(many.status == 400)
        }
    }

    @Test("a reload finds nothing changed, swaps an edit in, refuses a broken one and keeps serving")
    func reloads() async throws {
        try await Self.serving { server, directory in
            let file = directory.appendingPathComponent("contexts/users.mappings")
            let unchanged = try await server.request("POST", "/v1/reload")
            #expect(unchanged.status == 200 && unchanged.body.contains(#""unchanged""#), "\(unchanged.body)")

            try Data(Self.contexts.replacingOccurrences(of: #""years""#, with: #""age""#).utf8).write(to: file)
            let swapped = try await server.request("POST", "/v1/reload")
            #expect(swapped.status == 200 && swapped.body.contains(#""swapped""#), "\(swapped.body)")
            let mapped = try await server.request(
                "POST", "/v1/map/%24User", body: #"{"name": "Ann", "age": 4}"#, headers: Self.json)
            #expect(mapped.body == #"{"name":"Ann","age":4}"# + "\n")

            try Data("{".utf8).write(to: file)
            let refused = try await server.request("POST", "/v1/reload")
            #expect(refused.status == 409 && refused.body.contains(#""refused""#), "\(refused.body)")
            let still = try await server.request(
                "POST", "/v1/map/%24User", body: #"{"name": "Bo", "age": 5}"#, headers: Self.json)
            #expect(still.body == #"{"name":"Bo","age":5}"# + "\n")
            #expect(
                server.said.lines.withLock { $0 }.contains {
                    $0.contains("a reload was refused, version 2 keeps serving")
                })
        }
    }

    @Test("the playground: its page, a run of the edited files, another origin 403, no saving without --write")
    func playground() async throws {
        let directory = try Fixtures.directory(with: ["contexts/users.mappings": Self.contexts])
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = PlaygroundSession(
            roots: [directory.appendingPathComponent("contexts").path],
            scriptsDirectory: directory.appendingPathComponent("scripts").path, traits: Traits(), limits: LuaLimits(),
            writes: false, context: nil, input: nil)
        let server = try await ServerHarness { _, onListening in
            [Servers.playgroundApplication(session, host: "127.0.0.1", port: 0, onListening: onListening)]
        }
        do {
            try await Self.playgroundRequests(server)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }

    static func playgroundRequests(_ server: ServerHarness) async throws {
        let page = try await server.request("GET", "/")
        #expect(page.status == 200 && page.headers["content-type"]?.hasPrefix("text/html") == true)

        let run = try await server.request(
            "POST", "/api/run",
            body: #"{"context": "$User", "payload": "{\"name\": \"Ann\", \"years\": 3}", "files": {}}"#,
            headers: json)
        #expect(run.status == 200)
        #expect(run.body.contains("Ann"), "\(run.body)")

        let foreign = try await server.request(
            "POST", "/api/run", body: #"{"payload": "{}"}"#,
            headers: json.merging(["Origin": "http://evil.example"]) { $1 })
        #expect(foreign.status == 403, "\(foreign.body)")

        let save = try await server.request("POST", "/api/save", body: #"{"files": {}}"#, headers: json)
        #expect(save.status == 403)

        // New from this payload: the model name becomes a file's name, so only a model name is taken.
        let created = try await server.request(
            "POST", "/api/new", body: #"{"payload": "{\"id\": 1}", "model": "Ticket"}"#, headers: json)
        #expect(created.status == 200 && created.body.contains("contexts/Ticket.mappings"), "\(created.body)")
        #expect(created.body.contains("typed from 1 record: every type rests on one value"), "\(created.body)")
        for (model, problem) in [
            (
                "../../x",
                #"model: a model name is a letter, then letters, digits or _, but got \"../../x\" (did you mean 'X'?)"#
            ),
            ("Int", "model: Int is a built-in type: name the model something else, e.g. IntRecord"),
        ] {
            let refused = try await server.request(
                "POST", "/api/new", body: #"{"payload": "{}", "model": "\#(model)"}"#, headers: json)
            #expect(refused.status == 400 && refused.body.contains(problem), "\(refused.body)")
        }
    }
}
