// Reverse mapping: a typed tweet back into the JSON payload the context reads, and mapped again.
//
//     swift run --package-path Examples/SwiftHost example-reverse-mapping        (from the repository's root)
import Foundation
import Mappings
import MappingsLua
import TwitterModels

var definitions = Definitions()
definitions.register(Tweet.self)
var transformers = TransformerRegistry()
transformers.add(LuaScripts(directory: "scripts"))
let mapper = Mapper(catalog: try Catalog.load(["contexts"], transformers: transformers, definitions: definitions))

var tweet = Tweet()
tweet.identifier = "42"
tweet.message = "Hello from Swift"
tweet.user = User(name: "Ann", imageUrl: URL(string: "https://example.com/ann.png"))
tweet.coordinates = Coordinate(latitude: 48.8566, longitude: 2.3522)
tweet.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
tweet.retweets = 3
tweet.tags = ["swift", "json"]

// The dates go back with the entry's @dateFormat; the coordinates through the Lua reverse
// (MyTransformers.dictionaryFromCoordinate2D, the entry's @reverseTransformSelector).
let payload = try mapper.payload(from: tweet, using: mapper.context("$TweetModel"))
print(payload.value.jsonText)
for issue in payload.issues { print(issue) }

let again = try mapper.object(Tweet.self, from: try JSONValue(parsing: payload.value.jsonText), using: mapper.typedContext(Tweet.self, "$TweetModel"))
print("mapped again: \(again.value == tweet ? "the same tweet" : "a different tweet")")
