// Fetching from a REST API: GET a URL, check it, map what it answers into Swift types.
//
//     python3 tools/test-server.py Examples/twitter &     (prints "port N")
//     swift run --package-path Examples/SwiftHost example-fetch http://127.0.0.1:N/files/   (from the repository's root)
import Foundation
import Mappings
import MappingsFetch
import MappingsLua
import TwitterModels

guard CommandLine.arguments.count == 2, let base = URL(string: CommandLine.arguments[1]) else {
    print("usage: example-fetch BASE-URL (such as http://127.0.0.1:8080/files/)")
    exit(2)
}

var definitions = Definitions()
definitions.register(Timeline.self)
var transformers = TransformerRegistry()
transformers.add(LuaScripts(directory: "scripts"))
let fetcher = Fetcher(
    mapper: Mapper(catalog: try Catalog.load(["contexts"], transformers: transformers, definitions: definitions)))

// requestForObject: one tweet into a struct.
let tweet = try await fetcher.object(
    Tweet.self, FetchRequest(url: base.appendingPathComponent("tweet.json")), context: "$TweetModel")
print("fetched \(tweet.value.identifier) by \(tweet.value.user.name), \(tweet.issues.count) issues")

// requestForObjectsWithUrl: an array of tweets, with query parameters.
let tweets = try await fetcher.objects(
    Tweet.self, FetchRequest(url: base.appendingPathComponent("timeline.json"), parameters: ["count": "2"]),
    context: "$TweetModel")
print("fetched \(tweets.value.count) tweets: \(tweets.value.map(\.identifier))")

// Every failure before mapping is a FetchError whose case says what went wrong.
do {
    _ = try await fetcher.object(FetchRequest(url: base.appendingPathComponent("missing.json")), context: "$TweetModel")
} catch {
    switch error {
    case .status(_, let code, _): print("missing.json: HTTP \(code)")
    default: print("missing.json: \(error)")
    }
}
