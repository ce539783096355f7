import Foundation
import Mappings
import MappingsFetch
import MappingsLua
import MappingsTestSupport
import Testing

/// What `Fetcher` maps from a server is what the tool maps from the same file.
@Suite("Fetching and mapping agree", .serialized)
struct FetchAgreementTests {
    @Test("a payload with problems maps as far as it can, with its issues")
    func issues() async throws {
        let server = try Self.server()
        let fetcher = try Self.fetcher()
        let result = try await fetcher.object(
            FetchRequest(url: URL(string: server.url("files/broken-tweet.json"))!), context: "$TweetModel")
        let local = try ToolRunner.run(["map", "--context", "$TweetModel", "Examples/twitter/broken-tweet.json"])
        #expect(!result.issues.isEmpty)
        let relative = result.issues.map(\.description).joined(separator: "\n") + "\n"
        #expect(relative.replacingOccurrences(of: ToolRunner.packageRoot.path + "/", with: "") == local.stderr)
        #expect(JSONWriter.string(result.value) + "\n" == local.stdout)
    }

    static func server() throws -> TestServer {
        try TestServer(
            root: try ToolRunner.directory(with: [
                "broken-tweet.json": try String(
                    contentsOf: ToolRunner.packageRoot.appendingPathComponent("Examples/twitter/broken-tweet.json"),
                    encoding: .utf8)
            ]))
    }

    static func fetcher() throws -> Fetcher {
        var transformers = TransformerRegistry()
        transformers.add(LuaScripts(directory: Fixtures.scripts))
        return Fetcher(mapper: Mapper(catalog: try Catalog.load([Fixtures.contexts], transformers: transformers)))
    }
}
