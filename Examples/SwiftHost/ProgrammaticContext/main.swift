// A context written in Swift instead of a file, with a Swift closure transformer next to a Lua one.
//
//     swift run --package-path Examples/SwiftHost example-programmatic-context        (from the repository's root)
import Foundation
import Mappings
import MappingsLua
import TwitterModels

var definitions = Definitions()
definitions.register(Tweet.self)

// The same as "$UserModel" and "$TweetModel" of contexts/twitter.mappings, one call per entry.
definitions.context("$User", class: "UserModel") { user in
    user.map("name", from: "name")
    user.map("imageUrl", from: "profile_image_url", optional: true, defaultValue: "https://example.com/nobody.png")
}
definitions.context("$Tweet", class: "TweetModel") { tweet in
    tweet.map("identifier", from: "id_str")
    // A Swift closure: trims the text and fails on an empty one (the failure becomes an issue).
    tweet.map(
        "message", from: "text",
        transform: .closure { value, _ in
            guard case .string(let text) = value else { throw MappingsError.transformerFailed("expected a string") }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { throw MappingsError.transformerFailed("the text is empty") }
            return .string(trimmed)
        })
    tweet.map("user", from: "user", object: .context("$User"))
    // A Lua function of scripts/MyTransformers.lua, with its user data.
    tweet.map(
        "coordinates", from: "coordinates", optional: true,
        transform: .named(
            "MyTransformers", "coordinate2DFromDictionary:userData:error:",
            userData: ["longitude": "long", "latitude": "lat"]))
    tweet.map("createdAt", from: "created_at", optional: true, dateFormat: "EEE MMM dd HH:mm:ss Z yyyy")
    tweet.map("retweets", from: "retweet_count", defaultValue: 0)
    tweet.map("tags", from: "entities.hashtags.text", optional: true)
    // Checked by Catalog.load like a file's "@tests".
    tweet.test(
        "the message is trimmed", input: ["id_str": "1", "text": "  hi  ", "user": ["name": "Ann"]],
        output: [
            "identifier": "1", "message": "hi", "user": ["name": "Ann", "imageUrl": "https://example.com/nobody.png"],
            "coordinates": .null, "createdAt": .null, "retweets": 0, "tags": [],
        ])
}

var transformers = TransformerRegistry()
transformers.add(LuaScripts(directory: "scripts"))
let catalog = try Catalog.load(["contexts/models.mappings"], transformers: transformers, definitions: definitions)
let mapper = Mapper(catalog: catalog)

let tweet = try mapper.object(Tweet.self, from: try readJSON("Examples/twitter/tweet.json"), using: mapper.typedContext(Tweet.self, "$Tweet"))
print("\(tweet.value.user.name): \(tweet.value.message) at \(tweet.value.coordinates.map { "\($0.latitude), \($0.longitude)" } ?? "-")")
let empty = try mapper.object(from: ["id_str": "2", "text": "   ", "user": ["name": "Bo"]], using: mapper.context("$Tweet"))
for issue in empty.issues { print(issue) }

// A mistake in a Swift context is a load-time error at the Swift line that wrote it.
var wrong = Definitions()
wrong.context("$Broken", class: "UserModel") { user in
    user.map("nickname", from: "screen_name")
}
do {
    _ = try Catalog.load(["contexts/models.mappings"], definitions: wrong)
} catch {
    print(error)
}
