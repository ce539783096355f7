import Foundation
import Mappings
import MappingsLua

// The Twitter walkthrough's models as a Swift host writes them: structs here, final classes below.

struct User: MappedModel, Equatable {
    var name = ""
    var imageUrl: URL?

    static let mapping = TypedModel<User>("UserModel", make: { User() }) { user in
        user.bind("name", \.name)
        user.bind("imageUrl", \.imageUrl)
    }
}

struct Coordinate: MappedModel, Equatable {
    var latitude = 0.0
    var longitude = 0.0

    static let mapping = TypedModel<Coordinate>("Coordinate2D", make: { Coordinate() }) { coordinate in
        coordinate.bind("latitude", \.latitude)
        coordinate.bind("longitude", \.longitude)
    }
}

struct Tweet: MappedModel, Equatable {
    var identifier = ""
    var message = ""
    var user = User()
    var coordinates: Coordinate?
    var createdAt: Date?
    var retweets = 0
    var tags: [String] = []

    static let mapping = TypedModel<Tweet>("TweetModel", make: { Tweet() }) { tweet in
        tweet.bind("identifier", \.identifier)
        tweet.bind("message", \.message)
        tweet.bind("user", \.user)
        tweet.bind("coordinates", \.coordinates)
        tweet.bind("createdAt", \.createdAt)
        tweet.bind("retweets", \.retweets)
        tweet.bind("tags", \.tags)
    }
}

struct Timeline: MappedModel, Equatable {
    var tweets: [Tweet] = []

    static let mapping = TypedModel<Timeline>("TimelineModel", make: { Timeline() }) { timeline in
        timeline.bind("tweets", \.tweets)
    }
}

final class UserObject: MappedModel, @unchecked Sendable {
    var name = ""
    var imageUrl: URL?

    static let mapping = TypedModel<UserObject>("UserModel", make: { UserObject() }) { user in
        user.bind("name", \.name)
        user.bind("imageUrl", \.imageUrl)
    }
}

final class TweetObject: MappedModel, @unchecked Sendable {
    var identifier = ""
    var message = ""
    var user = UserObject()
    var coordinates: Coordinate?
    var createdAt: Date?
    var retweets = 0
    var tags: [String] = []

    static let mapping = TypedModel<TweetObject>("TweetModel", make: { TweetObject() }) { tweet in
        tweet.bind("identifier", \.identifier)
        tweet.bind("message", \.message)
        tweet.bind("user", \.user)
        tweet.bind("coordinates", \.coordinates)
        tweet.bind("createdAt", \.createdAt)
        tweet.bind("retweets", \.retweets)
        tweet.bind("tags", \.tags)
    }
}

final class TimelineObject: MappedModel, @unchecked Sendable {
    var tweets: [TweetObject] = []

    static let mapping = TypedModel<TimelineObject>("TimelineModel", make: { TimelineObject() }) { timeline in
        timeline.bind("tweets", \.tweets)
    }
}

/// The repository's root, its shipped contexts and scripts, and the Twitter example payloads.
enum Shipped {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let contexts = root.appendingPathComponent("contexts").path
    static let scripts = root.appendingPathComponent("scripts").path

    static func payload(_ name: String) throws -> JSONValue {
        let data = try Data(contentsOf: root.appendingPathComponent("Examples/twitter/\(name)"))
        return try JSONParser.parse([UInt8](data))
    }

    /// The shipped contexts with the Lua scripts, and `definitions` beside them.
    static func catalog(_ definitions: Definitions = Definitions(), paths: [String]? = nil) throws -> Catalog {
        var transformers = TransformerRegistry()
        transformers.add(LuaScripts(directory: scripts))
        return try Catalog.load(paths ?? [contexts], transformers: transformers, definitions: definitions)
    }
}
