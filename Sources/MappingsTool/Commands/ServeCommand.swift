import ArgumentParser
import Foundation
package import Mappings
import MappingsLua
import MappingsStream

/// `mappings serve`: the mapping as an HTTP service.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the contexts over HTTP: POST /v1/map/{context}, health, readiness, metrics, reloads.",
        discussion: """
            POST /v1/map/{context} maps the body: one JSON payload (Content-Type: application/json) \
            answers 200 with what 'mappings map' writes, 422 with {"issues": [...]} when one is an \
            error, 204 when the context's @filter drops it, 400 when the body is not JSON, 404 for an \
            unknown context; NDJSON (application/x-ndjson) answers 200 with a line per record line, \
            in order: the object, {"@rejected": {"line": N, "issues": [...]}} or {"@filtered": \
            {"line": N}}. Query options: omitNulls, strict, many. GET /healthz, GET /readyz (503 while \
            draining, from SIGTERM for --drain-delay seconds), GET /metrics (Prometheus), POST \
            /v1/reload ("unchanged" when no file changed). A new version serves only once \
            it loads and its @tests pass (--watch, SIGHUP, POST /v1/reload); a refused one is logged \
            and the old one keeps serving. SIGTERM stops accepting, lets the requests in flight \
            finish (up to --drain-timeout) and exits 0. docs/serve.md is the guide.

            A client gets --header-timeout seconds to send a request's head (or to go quiet), and \
            --body-timeout seconds to send its body whole (else 408); a request takes one of the \
            --max-in-flight slots only once its body is read; --max-connections bounds the connections \
            open at once. ?many=true maps a JSON array to an array; another query parameter is 400.

            Exit status: 0 after SIGTERM or SIGINT; 2 the contexts, scripts or options could not be \
            loaded, or the address could not be bound.

            Examples:
              mappings serve
              mappings serve --listen 127.0.0.1:9000 --watch
              curl -s -H 'Content-Type: application/json' -d @Examples/twitter/tweet.json \\
                http://127.0.0.1:8080/v1/map/%24TweetModel
            """
    )

    @OptionGroup var load: LoadOptions

    @Option(
        help: ArgumentHelp("The address to listen on, as HOST:PORT (port 0: any free port).", valueName: "host:port"))
    var listen = "127.0.0.1:8080"

    @Flag(help: "Reload when a .mappings file or a script changes (checked every second).")
    var watch = false

    @Option(help: ArgumentHelp("The largest request body, in bytes (suffix k or m for KiB or MiB).", valueName: "size"))
    var maxBody = "16m"

    @Option(help: ArgumentHelp("How many /v1/map requests may be answered at once; more get 503.", valueName: "n"))
    var maxInFlight = 64

    @Option(help: ArgumentHelp("How long SIGTERM waits for the requests in flight, in seconds.", valueName: "seconds"))
    var drainTimeout = 10.0

    @Option(
        help: ArgumentHelp(
            "After SIGTERM, seconds to go on answering, /readyz saying 503 draining, before the listener closes.",
            valueName: "seconds"))
    var drainDelay = 0.0

    @Option(
        help: ArgumentHelp(
            "Seconds a connection may take to send a whole request head, or go quiet, before it is closed.",
            valueName: "seconds"))
    var headerTimeout = 10.0

    @Option(
        help: ArgumentHelp(
            "Seconds a request's body may take to arrive whole; a slower one is answered 408.", valueName: "seconds"))
    var bodyTimeout = 30.0

    @Option(
        help: ArgumentHelp("Connections open at once; more wait to be accepted until one closes.", valueName: "n"))
    var maxConnections = 1024

    @Option(help: ArgumentHelp("Worker lanes for an NDJSON body (default: one per core).", valueName: "n"))
    var workers: Int?

    func validate() throws {
        guard Self.address(listen) != nil else {
            throw ValidationError("--listen takes HOST:PORT, such as 127.0.0.1:8080, but got '\(listen)'")
        }
        guard Self.size(maxBody) != nil else {
            throw ValidationError(
                "--max-body takes a size in bytes, such as 1048576, 512k or 16m, but got '\(maxBody)'")
        }
        guard maxInFlight >= 1 else { throw ValidationError("--max-in-flight takes 1 or more") }
        guard drainTimeout >= 0 else { throw ValidationError("--drain-timeout takes 0 or more seconds") }
        guard drainDelay >= 0 else { throw ValidationError("--drain-delay takes 0 or more seconds") }
        guard headerTimeout > 0, headerTimeout <= 86400 else {
            throw ValidationError("--header-timeout takes more than 0 seconds, up to 86400")
        }
        guard bodyTimeout > 0, bodyTimeout <= 86400 else {
            throw ValidationError("--body-timeout takes more than 0 seconds, up to 86400")
        }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections takes 1 or more") }
        if let workers, workers < 1 { throw ValidationError("--workers takes 1 or more") }
    }

    /// `HOST:PORT` (`[::1]:8080` for IPv6) as its host and port.
    static func address(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    /// `16m`, `512k` or a count of bytes.
    static func size(_ text: String) -> Int? {
        let lower = text.lowercased()
        let scale = lower.hasSuffix("m") ? 1 << 20 : lower.hasSuffix("k") ? 1 << 10 : 1
        let digits = scale == 1 ? lower : String(lower.dropLast())
        guard let count = Int(digits), count > 0, count <= Int.max / scale else { return nil }
        return count * scale
    }

    func run() async throws {
        guard let serve = ServerHooks.serve else { ServerHooks.runServerProgram(for: "serve") }
        defer { load.lua.reportDroppedLogLines() }
        let reloader: CatalogReloader
        do {
            reloader = try CatalogReloader(
                paths: load.mappingsPaths, traits: load.traits, tests: .all, maxTableMemory: load.maxTableMemory << 20
            ) { [load] in
                load.transformers
            }
        } catch {
            Terminal.diagnostics(error)
            throw ToolFailure(status: .loadFailure)
        }
        guard let (host, port) = Self.address(listen) else { throw ToolFailure(status: .loadFailure) }
        let plan = ServePlan(
            reloader: reloader, workers: workers ?? ProcessInfo.processInfo.activeProcessorCount,
            maxInFlight: maxInFlight, host: host, port: port, watch: watch,
            headerTimeout: .milliseconds(Int64(headerTimeout * 1000)),
            bodyTimeout: .milliseconds(Int64(bodyTimeout * 1000)), maxConnections: maxConnections,
            maxBody: Self.size(maxBody) ?? 16 << 20, drainDelay: .milliseconds(Int64(drainDelay * 1000)),
            drainTimeout: .milliseconds(Int64(drainTimeout * 1000)))
        do {
            try await serve(plan)
        } catch {
            Terminal.error("mappings serve: \(error)")
            throw ToolFailure(status: .loadFailure)
        }
    }
}

/// What `mappings-server` serves with: the options, read and checked, and the catalog loaded.
package struct ServePlan: Sendable {
    package var reloader: CatalogReloader
    package var workers: Int
    package var maxInFlight: Int
    package var host: String
    package var port: Int
    package var watch: Bool
    package var headerTimeout: Duration
    package var bodyTimeout: Duration
    package var maxConnections: Int
    package var maxBody: Int
    package var drainDelay: Duration
    package var drainTimeout: Duration
}
