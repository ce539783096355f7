import HTTPTypes
import Hummingbird

/// Answers a request whose head already says its body will not be read
/// (`HTTPLimits.refusal(head:)`) before any route waits for the body, and closes the
/// connection: a client that declares a body over the limit hears `413` at once, not a close at
/// the header timeout, and a body in a coding other than `chunked` is never handed to a route.
///
/// ```
/// POST /v1/map/%24User HTTP/1.1
/// Content-Length: 104857600
///
/// HTTP/1.1 413 Payload Too Large
/// Connection: close
/// {"error":"the body is larger than 16777216 bytes","help":"raise --max-body, or send smaller bodies"}
/// ```
struct FramingCheck<Context: RequestContext>: RouterMiddleware {
    let limits: HTTPLimits

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let refusal = limits.refusal(head: request.headers) else { return try await next(request, context) }
        var answer = MappingService.Answer.error(refusal.status, refusal.message, help: refusal.help)
        answer.headers.append(("Connection", "close"))
        return MappingServer.answer(answer)
    }
}
