import Foundation
import Logging
import Mappings
import MappingsTestSupport
import ServiceLifecycle
import Synchronization

@testable import MappingsServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server of the library running in this process on 127.0.0.1 (a free port), its services in a
/// group that `stop()` shuts down gracefully, as SIGTERM would; requests go through a real HTTP
/// client (URLSession).
final class ServerHarness: Sendable {
    let port: Int
    /// What the server said to the operator, line by line.
    let said: Said
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    /// Starts `services` (which call `onListening` with their port) and waits until they listen.
    init(_ make: (_ say: @escaping Servers.Say, _ onListening: @escaping @Sendable (Int) -> Void) -> [any Service])
        async throws
    {
        let said = Said()
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let services = make({ line in said.lines.withLock { $0.append(line) } }, { continuation.yield($0) })
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { .init(service: $0) }, logger: Servers.logger("tests", level: .critical)))
        self.group = group
        self.said = said
        running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw HarnessFailure("the server never listened") }
        self.port = port
    }

    /// Stops the services as SIGTERM does, and waits until they have.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await running.value
    }

    final class Said: Sendable {
        let lines = Mutex<[String]>([])
    }

    struct HarnessFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A response: its status, headers (lower-cased names) and body as text.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// Sends a request to the server and returns its answer.
    func request(
        _ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]
    ) async throws -> Response {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw HarnessFailure("not an HTTP answer") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return Response(status: http.statusCode, headers: fields, body: String(decoding: data, as: UTF8.self))
    }
}

/// What `serve` runs with, for the tests.
struct TestServeSettings: ServeSettings {
    var reloader: CatalogReloader
    var workers = 2
    var maxInFlight = 8
    var host = "127.0.0.1"
    var port = 0
    var watch = false
    var headerTimeout: Duration = .seconds(10)
    var bodyTimeout: Duration = .seconds(30)
    var maxConnections = 64
    var maxBody = 1 << 20
    var drainDelay: Duration = .zero
    var drainTimeout: Duration = .seconds(5)
}
