import Foundation
import Mappings
import Testing
import TwitterModels

/// The shipped Twitter contexts into the examples' models (`TwitterModels`), structs and final classes.
@Suite("Typed models: the shipped contexts into the examples' Twitter models")
struct TypedModelTests {
    static func registered<T: MappedModel>(_ type: T.Type) -> Definitions {
        var definitions = Definitions()
        definitions.register(type)
        return definitions
    }

    @Test("the shipped $TweetModel fills a Swift struct, field by field")
    func tweetStruct() throws {
        let mapper = Mapper(catalog: try Shipped.catalog(Self.registered(Timeline.self)))
        let payload = try Shipped.payload("tweet.json")
        let result = try mapper.object(Tweet.self, from: payload, using: mapper.typedContext(Tweet.self, "$TweetModel"))
        #expect(result.issues.isEmpty)
        let tweet = result.value
        #expect(tweet.identifier == "240859602684612608")
        #expect(tweet.message == "Introducing the Twitter Certified Products Program: https://t.co/MjJ8xAnT")
        #expect(tweet.user.name == "Twitter API")
        #expect(
            tweet.user.imageUrl
                == URL(string: "http://a0.twimg.com/profile_images/2284174872/7df3h38zabcvjylnyfe3_normal.png"))
        #expect(tweet.coordinates == Coordinate(latitude: 35.46500176, longitude: -97.51087576))
        #expect(tweet.createdAt == Date(timeIntervalSince1970: 1_346_260_378))
        #expect(tweet.retweets == 121)
        #expect(tweet.tags == ["twitter", "api"])
        // The same values as the dynamic object of the same context.
        let dynamic = try mapper.object(from: payload, using: mapper.context("$TweetModel"))
        #expect(tweet.mappingValue == dynamic.value)
    }

    @Test("every Twitter payload gives the same values in the @MappedModel structs as in the hand-bound classes")
    func macroEqualsHandWritten() throws {
        let structs = Mapper(catalog: try Shipped.catalog(Self.registered(Timeline.self)))
        let classes = Mapper(catalog: try Shipped.catalog(Self.registered(TimelineObject.self)))
        let folder = Shipped.root.appendingPathComponent("Examples/twitter")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(names.count >= 6)
        for name in names.sorted() {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            if try JSONValue(parsing: [UInt8](data)).typeName == "array" {
                let typed = try structs.map(data, to: Timeline.self, context: "$TimelineModel")
                let hand = try classes.map(data, to: TimelineObject.self, context: "$TimelineModel")
                #expect(typed.value.mappingValue.jsonText == hand.value.mappingValue.jsonText, "\(name)")
                #expect(typed.issues.map(\.description) == hand.issues.map(\.description), "\(name)")
            } else {
                let typed = try structs.map(data, to: Tweet.self, context: "$TweetModel")
                let hand = try classes.map(data, to: TweetObject.self, context: "$TweetModel")
                #expect(typed.value.mappingValue.jsonText == hand.value.mappingValue.jsonText, "\(name)")
                #expect(typed.issues.map(\.description) == hand.issues.map(\.description), "\(name)")
            }
        }
    }

    @Test("the shipped contexts fill final classes, and a timeline of them")
    func classes() throws {
        let mapper = Mapper(catalog: try Shipped.catalog(Self.registered(TimelineObject.self)))
        let tweet = try mapper.object(
            TweetObject.self, from: try Shipped.payload("tweet.json"),
            using: mapper.typedContext(TweetObject.self, "$TweetModel"))
        #expect(tweet.issues.isEmpty)
        #expect(tweet.value.identifier == "240859602684612608")
        #expect(tweet.value.user.name == "Twitter API")
        #expect(tweet.value.coordinates?.latitude == 35.46500176)
        #expect(tweet.value.retweets == 121)

        let payload = try Shipped.payload("timeline.json")
        let timeline = try mapper.object(
            TimelineObject.self, from: payload, using: mapper.typedContext(TimelineObject.self, "$TimelineModel"))
        let dynamic = try mapper.object(from: payload, using: mapper.context("$TimelineModel"))
        guard case .object(let object) = dynamic.value, case .array(let tweets)? = object["tweets"] else {
            Issue.record("no tweets in \(dynamic.value.jsonText)")
            return
        }
        #expect(timeline.value.tweets.count == tweets.count)
        #expect(tweets.count >= 2)
        for (typed, value) in zip(timeline.value.tweets, tweets) {
            guard case .object(let expected) = value else { continue }
            #expect(typed.identifier.mappingValue == expected["identifier"])
            #expect(typed.message.mappingValue == expected["message"])
            #expect(typed.user.mappingValue == expected["user"])
            #expect(typed.coordinates.mappingValue == expected["coordinates"])
            #expect(typed.createdAt.mappingValue == expected["createdAt"])
            #expect(typed.retweets.mappingValue == expected["retweets"])
            // An unset [String] stays as the instance was made: empty, where the dynamic object has null.
            #expect(typed.tags.mappingValue == (expected["tags"] == .null ? .array([]) : expected["tags"]))
        }
        #expect(timeline.issues.map(\.description) == dynamic.issues.map(\.description))
    }

    @Test("mapping into an existing instance keeps what the payload does not say, and the same objects")
    func existing() throws {
        let mapper = Mapper(catalog: try Shipped.catalog(Self.registered(TweetObject.self)))
        var tweet = try mapper.object(
            TweetObject.self, from: try Shipped.payload("tweet.json"),
            using: mapper.typedContext(TweetObject.self, "$TweetModel")
        )
        .value
        let original = tweet
        let user = tweet.user
        let details: JSONValue = [
            "id_str": "240859602684612608", "text": "short", "full_text": "the full text",
            "user": ["name": "Twitter"], "entities": ["hashtags": [["text": "more"]]],
        ]
        let issues = mapper.map(
            details, into: &tweet, using: try mapper.typedContext(TweetObject.self, "$TweetModel_Details"))
        #expect(issues.isEmpty)
        #expect(tweet === original)
        #expect(tweet.user === user)
        #expect(tweet.message == "the full text")
        #expect(tweet.user.name == "Twitter")
        #expect(tweet.coordinates?.longitude == -97.51087576)
        #expect(tweet.tags == ["twitter", "api", "more"])

        var value = Tweet()
        value.retweets = 7
        value.tags = ["old"]
        let registered = Mapper(catalog: try Shipped.catalog(Self.registered(Tweet.self)))
        let found = registered.map(
            ["id_str": "1", "text": "hi", "user": ["name": "Ann"], "entities": ["hashtags": [["text": "new"]]]],
            into: &value, using: try registered.typedContext(Tweet.self, "$TweetModel"))
        #expect(found.isEmpty)
        #expect(value.retweets == 0)  // the default applies when the payload has none
        #expect(value.tags == ["old", "new"])
        #expect(value.user.imageUrl?.absoluteString.hasSuffix("Untitled.png") == true)
    }

    @Test("a context and a registered type that disagree fail to load, naming both places")
    func mismatches() throws {
        let files = [
            "m.mappings": """
            { "@models": { "UserModel": { "name": "String", "imageUrl": "String", "age": "Int" } },
              "$U": { "@class": "UserModel", "name": "n" } }
            """
        ]
        do {
            _ = try Catalog.load(["m.mappings"], from: .memory(files), definitions: Self.registered(User.self))
            Issue.record("loaded")
        } catch {
            let text = error.description
            #expect(text.contains("the model \"UserModel\" does not match the Swift type"))
            #expect(text.contains("\"imageUrl\" is String here, URL? in Swift"))
            #expect(text.contains("\"age\" is not bound by the Swift type"))
            #expect(text.contains("--> m.mappings:1:"))
            #expect(text.contains("TwitterModels/TwitterModels.swift:"))
        }
        do {
            _ = try Catalog.load(
                ["c.mappings"],
                from: .memory([
                    "c.mappings":
                        #"{ "$U": { "@class": "UserModel", "nam": "n", "imageUrl": { "@keyPath": "u", "@defaultValue": 3 } } }"#
                ]),
                definitions: Self.registered(User.self))
            Issue.record("loaded")
        } catch {
            let text = error.description
            #expect(text.contains("did you mean \"name\""))
            #expect(text.contains("c.mappings:1:"))
            #expect(text.contains("the default value of \"imageUrl\" cannot become URL?"))
        }
        let catalog = try Shipped.catalog(Self.registered(Tweet.self))
        #expect(throws: MappingsError.self) {
            try Mapper(catalog: catalog).object(
                User.self, from: [:], using: Mapper(catalog: catalog).typedContext(User.self, "$TweetModel"))
        }
        let unregistered = try Shipped.catalog()
        do {
            _ = try Mapper(catalog: unregistered).object(
                Coordinate.self, from: [:],
                using: Mapper(catalog: unregistered).typedContext(Coordinate.self, "$TweetModel"))
        } catch {
            #expect(error.description.contains("builds \"TweetModel\", not \"Coordinate2D\""))
        }
    }
}
