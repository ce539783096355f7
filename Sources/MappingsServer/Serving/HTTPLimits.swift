import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import Mappings
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// What a server of the tool (`serve`, `playground`, `stream --metrics-listen`) grants a client
/// before it answers: how long a connection may take to send a request's head (and may go quiet),
/// how long its body may take, how many connections are open at once, and how large a body is.
/// A slow or stalled client holds a connection for at most these times, and nothing else: the
/// work a request asks for starts only once its body is read.
struct HTTPLimits: Sendable {
    /// How long a connection may go without sending a whole request head — since it opened or
    /// since its last answer — or without sending a byte of a body: then it is closed.
    var headerTimeout: Duration = .seconds(10)
    /// How long a request's body may take to arrive whole, from its head: then `408`.
    var bodyTimeout: Duration = .seconds(30)
    /// Connections open at once; more wait in the listening socket's backlog until one closes.
    var maxConnections = 1024
    /// The largest body read; a larger one is `413`.
    var maxBody = 16 << 20

    /// The Hummingbird application of a tool server: HTTP/1 with these limits, a connection
    /// closed after an answer that says `Connection: close`.
    func application<Responder: HTTPResponder>(
        responder: Responder, host: String, port: Int, onServerRunning: @escaping @Sendable (any Channel) async -> Void,
        logger: Logger
    ) -> Application<Responder> where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        let server = HTTPServerBuilder.http1(
            configuration: .init(
                additionalChannelHandlers: [CloseAfterAnswer()],
                idleTimeout: .nanoseconds(headerTimeout.nanoseconds)))
        return Application(
            responder: responder, server: server,
            configuration: .init(
                address: .hostname(host, port: port), serverName: "mappings",
                availableConnectionsDelegate: MaximumAvailableConnections(maxConnections, logger: logger)),
            onServerRunning: onServerRunning, logger: logger)
    }

    /// What reading a request's body came to.
    enum BodyRead: Sendable {
        case body([UInt8])
        /// Larger than `maxBody`.
        case tooLarge
        /// Not whole within `bodyTimeout`.
        case timedOut
        /// Framed wrongly (a chunk size that is no number, a transfer coding other than chunked).
        case malformed(String)
        /// The client went away before sending it whole.
        case gone
    }

    /// Reads a request's whole body, within `maxBody` bytes and `bodyTimeout`.
    func readBody(_ request: Request) async -> BodyRead {
        let limit = maxBody
        return await withTaskGroup(of: BodyRead?.self) { group in
            group.addTask {
                do {
                    let buffer = try await request.body.collect(upTo: limit)
                    return .body(Array(buffer.readableBytesView))
                } catch is NIOTooManyBytesError {
                    return .tooLarge
                } catch let error as HTTPParserError {
                    // The connection ending before the body did is a client gone, not a frame.
                    if error == .invalidEOFState || error == .closedConnection { return .gone }
                    return .malformed(Self.describe(error))
                } catch is CancellationError {
                    return nil
                } catch {
                    return .gone
                }
            }
            group.addTask { [bodyTimeout] in
                do {
                    try await Task.sleep(for: bodyTimeout)
                    return .timedOut
                } catch {
                    return nil
                }
            }
            var outcome = BodyRead.gone
            if let first = await group.next(), let first { outcome = first }
            group.cancelAll()
            return outcome
        }
    }

    /// The parser's complaint in words.
    static func describe(_ error: HTTPParserError) -> String {
        switch error {
        case .invalidChunkSize: "a chunk size is not a hexadecimal number"
        case .invalidContentLength: "the Content-Length is not a number"
        case .unexpectedContentLength: "Content-Length and Transfer-Encoding are both given"
        case .unknown: "a Transfer-Encoding other than chunked, or framing that is not HTTP/1.1's"
        default: "the request is not well-formed HTTP/1.1 (\(error))"
        }
    }

    /// The answer to a request whose head says its body will not be read, before a byte of it is
    /// waited for: a `Content-Length` over `maxBody` (413), a `Transfer-Encoding` other than
    /// exactly `chunked` (400: `gzip, chunked` too, whose body would reach a route still coded);
    /// `nil` when the body may be read. `FramingCheck` answers it at once.
    func refusal(head fields: HTTPFields) -> (status: Int, message: String, help: String)? {
        let codings = fields[values: .transferEncoding]
        // The parser has taken the spaces around a field's value off.
        if !codings.isEmpty, codings.count > 1 || codings[0].lowercased() != "chunked" {
            let given = DiagnosticRenderer.printable(codings.joined(separator: ", "))
            return refusal(.malformed("a Transfer-Encoding other than chunked (\"\(given)\")"))
        }
        if let declared = fields[.contentLength], let length = Int(declared), length > maxBody {
            return refusal(.tooLarge)
        }
        return nil
    }

    /// The answer to a body that could not be read; `nil` when the client went away (nothing
    /// to answer). Each closes the connection, whose rest is not read.
    func refusal(_ read: BodyRead) -> (status: Int, message: String, help: String)? {
        switch read {
        case .body, .gone: nil
        case .tooLarge:
            (413, "the body is larger than \(maxBody) bytes", "raise --max-body, or send smaller bodies")
        case .timedOut:
            (
                408, "the body did not arrive whole within \(bodyTimeout)",
                "send the body at once, or raise --body-timeout"
            )
        case .malformed(let why):
            (400, "the request is not framed well: \(why)", "send a Content-Length, or chunks with hexadecimal sizes")
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// Closes a connection once an answer that says `Connection: close` is written: the server
/// answers a body it will not read (too large, too slow, framed wrongly) and is done with the
/// connection, instead of reading the rest of what the client sends.
final class CloseAfterAnswer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var closing = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closing = head.headerFields[.connection]?.lowercased() == "close"
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closing else {
                context.write(data, promise: promise)
                return
            }
            closing = false
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(data, promise: written)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            if let promise { written.futureResult.cascade(to: promise) }
        }
    }
}
