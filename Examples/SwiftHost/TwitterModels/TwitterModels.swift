// The Twitter walkthrough's models as a Swift host writes them, shared by the examples: structs
// bound by `@MappedModel` to the model names the shipped contexts build (`@class`), and the same
// models as final classes bound by hand with `TypedModel` — the form for types a host does not
// own, or whose binding it wants to spell out.
public import Foundation
public import Mappings
public import MappingsMacros

/// A Twitter user (`UserModel`).
@MappedModel("UserModel")
public struct User: Equatable, Sendable {
    public var name = ""
    public var imageUrl: URL?

    public init(name: String = "", imageUrl: URL? = nil) {
        self.name = name
        self.imageUrl = imageUrl
    }
}

/// A point on Earth (`Coordinate2D`).
@MappedModel("Coordinate2D")
public struct Coordinate: Equatable, Sendable {
    public var latitude = 0.0
    public var longitude = 0.0

    public init(latitude: Double = 0, longitude: Double = 0) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A tweet (`TweetModel`).
@MappedModel("TweetModel")
public struct Tweet: Equatable, Sendable {
    public var identifier = ""
    public var message = ""
    public var user = User()
    public var coordinates: Coordinate?
    public var createdAt: Date?
    public var retweets = 0
    public var tags: [String] = []

    public init() {}
}

/// A timeline (`TimelineModel`).
@MappedModel("TimelineModel")
public struct Timeline: Equatable, Sendable {
    public var tweets: [Tweet] = []

    public init() {}
}

/// The same user and tweet as final classes: mapping into an instance keeps the instance.
public final class UserObject: MappedModel, @unchecked Sendable {
    public var name = ""
    public var imageUrl: URL?

    public init() {}

    public static let mapping = TypedModel<UserObject>("UserModel", make: { UserObject() }) { user in
        user.bind("name", \.name)
        user.bind("imageUrl", \.imageUrl)
    }
}

public final class TweetObject: MappedModel, @unchecked Sendable {
    public var identifier = ""
    public var message = ""
    public var user = UserObject()
    public var coordinates: Coordinate?
    public var createdAt: Date?
    public var retweets = 0
    public var tags: [String] = []

    public init() {}

    public static let mapping = TypedModel<TweetObject>("TweetModel", make: { TweetObject() }) { tweet in
        tweet.bind("identifier", \.identifier)
        tweet.bind("message", \.message)
        tweet.bind("user", \.user)
        tweet.bind("coordinates", \.coordinates)
        tweet.bind("createdAt", \.createdAt)
        tweet.bind("retweets", \.retweets)
        tweet.bind("tags", \.tags)
    }
}

public final class TimelineObject: MappedModel, @unchecked Sendable {
    public var tweets: [TweetObject] = []

    public init() {}

    public static let mapping = TypedModel<TimelineObject>("TimelineModel", make: { TimelineObject() }) { timeline in
        timeline.bind("tweets", \.tweets)
    }
}

/// Reads a JSON file into a value.
public func readJSON(_ path: String) throws -> JSONValue {
    try JSONValue(parsing: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
}
