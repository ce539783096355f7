import HTTPTypes
import Testing

@testable import MappingsServer

/// What a request's head alone decides: `HTTPLimits.refusal(head:)`, which `FramingCheck`
/// answers before any route reads a body, and which methods the playground guards against
/// other sites; over a socket in the serve and playground suites.
@Suite struct HTTPLimitsTests {
    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    @Test(
        "a head is refused for a declared body over the limit or a coding other than chunked alone",
        arguments: [
            ([("Content-Length", "1025")], 413),
            ([("Content-Length", "104857600")], 413),
            ([("Transfer-Encoding", "gzip, chunked")], 400),
            ([("Transfer-Encoding", "gzip")], 400),
            ([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")], 400),
            ([("Content-Length", "1024")], nil),
            ([("Transfer-Encoding", "chunked")], nil),
            ([("Transfer-Encoding", "Chunked")], nil),
            ([], nil),
        ] as [([(String, String)], Int?)])
    func aHeadIsRefused(head: [(String, String)], status: Int?) {
        let refusal = HTTPLimits(maxBody: 1024).refusal(head: Self.fields(head))
        #expect(refusal?.status == status)
        if status == 413 { #expect(refusal?.message == "the body is larger than 1024 bytes") }
        if status == 400 { #expect(refusal?.message.contains("a Transfer-Encoding other than chunked") == true) }
    }

    @Test(
        "every method but the reads changes state",
        arguments: [
            (HTTPRequest.Method.get, false), (.head, false), (.options, false), (.post, true), (.put, true),
            (.delete, true), (.patch, true),
        ])
    func methodsThatChangeState(method: HTTPRequest.Method, changes: Bool) {
        #expect(method.changesState == changes)
    }
}
