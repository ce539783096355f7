// Typed models: the shipped Twitter contexts fill Swift structs (`@MappedModel`, TwitterModels),
// classes bound by hand, and a Codable type of the host's own.
//
//     swift run --package-path Examples/SwiftHost example-typed-models        (from the repository's root)
import Foundation
import Mappings
import MappingsLua
import TwitterModels

// Register the Swift types (and the models they nest) beside the shipped files; the Lua
// scripts provide MyTransformers.coordinate2DFromDictionary.
var definitions = Definitions()
definitions.register(Timeline.self)
var transformers = TransformerRegistry()
transformers.add(LuaScripts(directory: "scripts"))
let catalog: Catalog
do {
    catalog = try Catalog.load(["contexts"], transformers: transformers, definitions: definitions)
} catch {
    print(error)  // every problem, with file:line:column and the source line
    exit(2)
}
let mapper = Mapper(catalog: catalog)

// One call: the payload's bytes into a struct (the context looked up once, and kept).
let tweet = try mapper.map(Data(contentsOf: URL(fileURLWithPath: "Examples/twitter/tweet.json")), to: Tweet.self, context: "$TweetModel")
print("tweet \(tweet.value.identifier) by \(tweet.value.user.name): \(tweet.value.message)")
print("  created \(tweet.value.createdAt.map { $0.formatted(.iso8601) } ?? "-"), \(tweet.value.retweets) retweets, tags \(tweet.value.tags)")
if let at = tweet.value.coordinates { print("  at \(at.latitude), \(at.longitude)") }

// A timeline from an array of tweets ("@keyPath": "@self").
let timeline = try mapper.object(Timeline.self, from: try readJSON("Examples/twitter/timeline.json"), using: mapper.typedContext(Timeline.self, "$TimelineModel"))
print("timeline of \(timeline.value.tweets.count) tweets: \(timeline.value.tweets.map(\.identifier))")

// A payload with problems: the instance as complete as it could be made, and every issue.
let broken = try mapper.object(Tweet.self, from: try readJSON("Examples/twitter/broken-tweet.json"), using: mapper.typedContext(Tweet.self, "$TweetModel"))
print("broken tweet: \(broken.issues.count) issues")
for issue in broken.issues { print("  \(issue)") }

// mapValue:toObject: a class instance updated in place with more details.
let classes = Mapper(
    catalog: try Catalog.load(
        ["contexts"], transformers: transformers,
        definitions: { var d = Definitions(); d.register(TimelineObject.self); return d }()))
var object = try classes.object(TweetObject.self, from: try readJSON("Examples/twitter/tweet.json"), using: classes.typedContext(TweetObject.self, "$TweetModel")).value
let same = object
let details: JSONValue = ["id_str": "240859602684612608", "text": "t", "full_text": "The full text.", "user": ["name": "Twitter API"]]
let issues = classes.map(details, into: &object, using: try classes.typedContext(TweetObject.self, "$TweetModel_Details"))
print("details: \(object.message) (same instance: \(object === same), \(issues.count) issues)")

// Codable through a context: a type that conforms to nothing of the library's, decoded from the
// mapped value (its keys are the model's property names), no JSON text in between.
struct Headline: Decodable {
    let message: String
    let retweets: Int
    let user: Author
    struct Author: Decodable { let name: String }
}
let headline = try mapper.decode(Headline.self, from: Data(contentsOf: URL(fileURLWithPath: "Examples/twitter/tweet.json")), context: "$TweetModel")
if let value = headline.value { print("headline: \(value.user.name), \(value.retweets) retweets (\(headline.issues.count) issues)") }
