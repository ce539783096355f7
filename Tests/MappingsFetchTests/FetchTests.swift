import Foundation
import Mappings
import MappingsFetch
import MappingsLua
import MappingsTestSupport
import Testing

/// The fetch API against `tools/test-server.py` on 127.0.0.1.
@Suite("Fetching from a REST API", .serialized)
struct FetchTests {
    struct Account: MappedModel, Equatable {
        var name = ""
        var imageUrl: URL?

        static let mapping = TypedModel<Account>("UserModel", make: { Account() }) { account in
            account.bind("name", \.name)
            account.bind("imageUrl", \.imageUrl)
        }
    }

    static func server() throws -> TestServer {
        try TestServer.twitterPayloads()
    }

    static func fetcher() throws -> Fetcher {
        var transformers = TransformerRegistry()
        transformers.add(LuaScripts(directory: Fixtures.root.appendingPathComponent("scripts").path))
        var definitions = Definitions()
        definitions.register(Account.self)
        definitions.context("$Echo") { echo in
            echo.map("method", from: "method")
            echo.map("q", from: "query.q.@first")
            echo.map("body", from: "body")
        }
        let catalog = try Catalog.load(
            [Fixtures.root.appendingPathComponent("contexts").path], transformers: transformers,
            definitions: definitions)
        return Fetcher(mapper: Mapper(catalog: catalog))
    }

    @Test("GET, map, and the same object as mapping the file; many, a key path, a closure, typed")
    func success() async throws {
        let server = try Self.server()
        let fetcher = try Self.fetcher()
        let tweet = try await fetcher.object(
            FetchRequest(url: URL(string: server.url("files/tweet.json"))!), context: "$TweetModel")
        let local = try fetcher.mapper.object(
            from: try JSONParser.parse(
                [UInt8](
                    try Data(contentsOf: Fixtures.root.appendingPathComponent("Examples/twitter/tweet.json")))),
            context: "$TweetModel")
        #expect(tweet.issues.isEmpty)
        #expect(JSONWriter.string(tweet.value) == JSONWriter.string(local.value))

        let search = FetchRequest(url: URL(string: server.url("files/search.json"))!)
        let many = try await fetcher.objects(search, context: "$TweetModel", select: .keyPath("data.statuses"))
        guard case .array(let tweets) = many.value else {
            Issue.record("not an array")
            return
        }
        #expect(tweets.count == 2)
        let picked = try await fetcher.object(
            search, context: "$TimelineModel",
            select: .transform { body in
                guard case .object(let object) = body, case .object(let data)? = object["data"],
                    let statuses = data["statuses"]
                else { throw MappingsError.transformerFailed("no data.statuses") }
                return statuses
            })
        #expect(JSONWriter.string(picked.value).hasPrefix(#"{"tweets":[{"identifier":"#))

        let account = try await fetcher.object(
            Account.self, FetchRequest(url: URL(string: server.url("files/user.json"))!), context: "$UserModel")
        #expect(account.value == Account(name: "Ann", imageUrl: URL(string: "https://example.com/ann.png")))
        var existing = Account(name: "old", imageUrl: nil)
        let issues = try await fetcher.update(
            &existing, FetchRequest(url: URL(string: server.url("files/user.json"))!), context: "$UserModel")
        #expect(issues.isEmpty && existing.name == "Ann")
    }

    @Test("parameters go into the query, a body makes a POST")
    func post() async throws {
        let server = try Self.server()
        let fetcher = try Self.fetcher()
        let request = FetchRequest(
            url: URL(string: server.url("echo"))!, parameters: ["q": "a b+c&d=é"], json: ["id": 1, "tags": ["x"]])
        let echoed = try await fetcher.object(request, context: "$Echo")
        #expect(
            JSONWriter.string(echoed.value)
                == #"{"method":"POST","q":"a b+c&d=é","body":"{\"id\":1,\"tags\":[\"x\"]}"}"#)
        let get = try await fetcher.object(
            FetchRequest(url: URL(string: server.url("echo"))!, parameters: ["q": "1"]), context: "$Echo")
        #expect(JSONWriter.string(get.value) == #"{"method":"GET","q":"1","body":""}"#)
    }

    @Test("404, 500, a wrong content type, invalid JSON, nothing to select, no server: one error each")
    func failures() async throws {
        let server = try Self.server()
        let fetcher = try Self.fetcher()
        func failure(_ path: String, select: Selection = .whole, context: String = "$TweetModel") async -> FetchError? {
            do {
                _ = try await fetcher.object(FetchRequest(url: URL(string: path)!), context: context, select: select)
                return nil
            } catch {
                return error
            }
        }
        guard case .status(_, 404, let body)? = await failure(server.url("files/missing.json")) else {
            Issue.record("no 404")
            return
        }
        #expect(body.contains("not found"))
        guard case .status(_, 500, _)? = await failure(server.url("files/tweet.json?status=500")) else {
            Issue.record("no 500")
            return
        }
        guard case .contentType(_, "text/html")? = await failure(server.url("files/tweet.json?type=text/html")) else {
            Issue.record("no content type error")
            return
        }
        guard case .invalidJSON(_, let message)? = await failure(server.url("files/invalid.json")) else {
            Issue.record("no JSON error")
            return
        }
        #expect(message.hasPrefix("1:18:"))
        guard
            case .selection(_, let nothing)? = await failure(
                server.url("files/search.json"), select: .keyPath("data.tweets"))
        else {
            Issue.record("no selection error")
            return
        }
        #expect(nothing == #"the response has nothing at "data.tweets""#)
        guard case .connection? = await failure("http://127.0.0.1:1/tweet.json") else {
            Issue.record("no connection error")
            return
        }
        guard case .mapping(let error)? = await failure(server.url("files/tweet.json"), context: "$Tweet") else {
            Issue.record("no mapping error")
            return
        }
        #expect(error.description.contains("no context named \"$Tweet\""))
    }
}
