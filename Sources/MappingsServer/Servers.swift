import Dispatch
import Foundation
import Hummingbird
import Logging
package import Mappings
import MappingsLua
package import MappingsWorkspace
import NIOCore
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The tool's HTTP servers — `serve`, `playground` and `stream --metrics-listen`'s endpoint —
/// each a router on the one application `HTTPLimits.application` builds, run by a service group
/// that stops on SIGTERM or SIGINT. What they say to the operator goes to `say` (the tool writes
/// it to stderr); a failure to bind or to run is thrown.
package enum Servers {
    /// One line for the operator.
    package typealias Say = @Sendable (String) -> Void

    /// `mappings serve`: answers until SIGTERM or SIGINT, then drains.
    package static func serve(_ settings: some ServeSettings, say: @escaping Say) async throws {
        let services = serveServices(settings, say: say) { port in
            say("mappings serve: listening on \(url(settings.host, port))")
        }
        // The drain service ends the process at its timeout, having said what it cut; the group's
        // own bound is a backstop.
        try await run(
            services, logger: logger("mappings serve", level: .warning),
            maximumShutdown: settings.drainDelay + settings.drainTimeout + .seconds(5))
    }

    /// `serve`'s services, to run in one group that stops them last to first: the drain
    /// (readiness, then the delay), the reloads, the server, which calls `onListening` with the
    /// port it listens on.
    static func serveServices(
        _ settings: some ServeSettings, say: @escaping Say, onListening: @escaping @Sendable (Int) -> Void
    ) -> [any Service] {
        LuaScripts.countsCalls.store(true, ordering: .relaxed)
        let metrics = ServerMetrics()
        let service = MappingService(
            reloader: settings.reloader, metrics: metrics, workers: settings.workers,
            maxInFlight: settings.maxInFlight, say: say)
        let limits = HTTPLimits(
            headerTimeout: settings.headerTimeout, bodyTimeout: settings.bodyTimeout,
            maxConnections: settings.maxConnections, maxBody: settings.maxBody)
        let server = MappingServer(service: service, limits: limits)
        let app = limits.application(
            responder: server.router().buildResponder(), host: settings.host, port: settings.port,
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? settings.port) },
            logger: logger("mappings serve", level: .warning))
        let reloads = ReloadService(service: service, watch: settings.watch)
        let drain = DrainService(
            service: service, draining: server.draining, delay: settings.drainDelay, timeout: settings.drainTimeout)
        return [app, reloads, drain]
    }

    /// `mappings playground`: serves the page and its API on the session until SIGTERM or SIGINT.
    package static func playground(
        _ session: PlaygroundSession, host: String, port: Int, say: @escaping Say
    ) async throws {
        let app = playgroundApplication(session, host: host, port: port) { port in
            say(
                "mappings playground: \(url(host, port))/"
                    + (session.writes ? " (edits are saved with Save)" : " (edits stay in the page)"))
        }
        try await run([app], logger: logger("mappings playground", level: .warning), maximumShutdown: nil)
    }

    /// The playground's application, which calls `onListening` with the port it listens on.
    static func playgroundApplication(
        _ session: PlaygroundSession, host: String, port: Int, onListening: @escaping @Sendable (Int) -> Void
    ) -> any Service {
        let limits = HTTPLimits(maxBody: 8 << 20)
        let bound = PlaygroundServer.BoundPort()
        return limits.application(
            responder: PlaygroundServer(session: session, host: host, port: bound, limits: limits).router()
                .buildResponder(),
            host: host, port: port,
            onServerRunning: { channel in
                let listening = channel.localAddress?.port ?? port
                bound.set(listening)
                onListening(listening)
            },
            logger: logger("mappings playground", level: .warning))
    }

    /// Why the metrics endpoint could not start.
    package struct Unbound: Error, CustomStringConvertible {
        package var description: String
    }

    /// `/metrics` and `/healthz` beside a running stream, on a task of its own; returns once it
    /// listens, or throws `Unbound` when the address cannot be bound (before any record is read).
    package static func startMetricsEndpoint(
        host: String, port: Int, context: String, board: StreamBoard, say: @escaping Say
    ) throws(Unbound) {
        LuaScripts.countsCalls.store(true, ordering: .relaxed)
        let listening = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        let app = HTTPLimits().application(
            responder: MetricsEndpoint(context: context, board: board).router().buildResponder(), host: host,
            port: port,
            onServerRunning: { channel in
                say("mappings stream: metrics on \(url(host, channel.localAddress?.port ?? port))/metrics")
                listening.signal()
            },
            logger: logger("mappings stream", level: .critical))
        Task.detached {
            do {
                try await app.run()
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            listening.signal()
        }
        listening.wait()
        if let reason = failure.withLock({ $0 }) { throw Unbound(description: reason) }
    }

    /// The services, in a group that stops them (last to first) on SIGTERM or SIGINT.
    private static func run(
        _ services: [any Service], logger: Logger, maximumShutdown: Duration?
    ) async throws {
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        if let maximumShutdown { configuration.maximumGracefulShutdownDuration = maximumShutdown }
        try await ServiceGroup(configuration: configuration).run()
    }

    static func logger(_ label: String, level: Logger.Level) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }

    /// `http://HOST:PORT`, an IPv6 host in brackets.
    private static func url(_ host: String, _ port: Int) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}

/// What `mappings serve` runs with (the tool's `ServePlan`).
package protocol ServeSettings: Sendable {
    var reloader: CatalogReloader { get }
    /// Lanes for an NDJSON body.
    var workers: Int { get }
    var maxInFlight: Int { get }
    var host: String { get }
    var port: Int { get }
    var watch: Bool { get }
    var headerTimeout: Duration { get }
    var bodyTimeout: Duration { get }
    var maxConnections: Int { get }
    var maxBody: Int { get }
    var drainDelay: Duration { get }
    var drainTimeout: Duration { get }
}
