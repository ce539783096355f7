// The Twitter walkthrough's models as a Swift host writes them, shared by the examples:
// structs, bound to the model names the shipped contexts build (`@class`).
public import Foundation
public import Mappings

/// A Twitter user (`UserModel`).
public struct User: MappedModel, Equatable, Sendable {
    public var name = ""
    public var imageUrl: URL?

    public init(name: String = "", imageUrl: URL? = nil) {
        self.name = name
        self.imageUrl = imageUrl
    }

    public static let mapping = TypedModel<User>("UserModel", make: { User() }) { user in
        user.bind("name", \.name)
        user.bind("imageUrl", \.imageUrl)
    }
}

/// A point on Earth (`Coordinate2D`).
public struct Coordinate: MappedModel, Equatable, Sendable {
    public var latitude = 0.0
    public var longitude = 0.0

    public init(latitude: Double = 0, longitude: Double = 0) {
        self.latitude = latitude
        self.longitude = longitude
    }

    public static let mapping = TypedModel<Coordinate>("Coordinate2D", make: { Coordinate() }) { coordinate in
        coordinate.bind("latitude", \.latitude)
        coordinate.bind("longitude", \.longitude)
    }
}

/// A tweet (`TweetModel`).
public struct Tweet: MappedModel, Equatable, Sendable {
    public var identifier = ""
    public var message = ""
    public var user = User()
    public var coordinates: Coordinate?
    public var createdAt: Date?
    public var retweets = 0
    public var tags: [String] = []

    public init() {}

    public static let mapping = TypedModel<Tweet>("TweetModel", make: { Tweet() }) { tweet in
        tweet.bind("identifier", \.identifier)
        tweet.bind("message", \.message)
        tweet.bind("user", \.user)
        tweet.bind("coordinates", \.coordinates)
        tweet.bind("createdAt", \.createdAt)
        tweet.bind("retweets", \.retweets)
        tweet.bind("tags", \.tags)
    }
}

/// A timeline (`TimelineModel`).
public struct Timeline: MappedModel, Equatable, Sendable {
    public var tweets: [Tweet] = []

    public init() {}

    public static let mapping = TypedModel<Timeline>("TimelineModel", make: { Timeline() }) { timeline in
        timeline.bind("tweets", \.tweets)
    }
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
