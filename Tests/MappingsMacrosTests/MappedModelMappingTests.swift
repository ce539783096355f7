import Foundation
import Mappings
import MappingsLua
import MappingsMacros
import MappingsTestSupport
import Testing

// The Twitter walkthrough's models twice: bound by the macro, and by hand as before it.

@MappedModel("UserModel")
struct MacroUser: Equatable {
    var name = ""
    var imageUrl: URL?
}

@MappedModel("Coordinate2D")
struct MacroCoordinate: Equatable {
    var latitude = 0.0
    var longitude = 0.0
}

@MappedModel("TweetModel")
struct MacroTweet: Equatable {
    var identifier = ""
    var message = ""
    var user = MacroUser()
    var coordinates: MacroCoordinate?
    var createdAt: Date?
    var retweets = 0
    var tags: [String] = []
    /// Not in the model: mapping leaves it as `init()` made it.
    @MappedIgnored var seen = false
    var summary: String { "\(user.name): \(message)" }
}

@MappedModel("TimelineModel")
final class MacroTimeline {
    var tweets: [MacroTweet] = []
}

struct HandUser {
    var name = ""
    var imageUrl: URL?
    static let mapping = TypedModel<HandUser>("UserModel", make: { HandUser() }) { user in
        user.bind("name", \.name)
        user.bind("imageUrl", \.imageUrl)
    }
}

extension HandUser: MappedModel {}

struct HandCoordinate: MappedModel {
    var latitude = 0.0
    var longitude = 0.0
    static let mapping = TypedModel<HandCoordinate>("Coordinate2D", make: { HandCoordinate() }) { coordinate in
        coordinate.bind("latitude", \.latitude)
        coordinate.bind("longitude", \.longitude)
    }
}

struct HandTweet: MappedModel {
    var identifier = ""
    var message = ""
    var user = HandUser()
    var coordinates: HandCoordinate?
    var createdAt: Date?
    var retweets = 0
    var tags: [String] = []
    static let mapping = TypedModel<HandTweet>("TweetModel", make: { HandTweet() }) { tweet in
        tweet.bind("identifier", \.identifier)
        tweet.bind("message", \.message)
        tweet.bind("user", \.user)
        tweet.bind("coordinates", \.coordinates)
        tweet.bind("createdAt", \.createdAt)
        tweet.bind("retweets", \.retweets)
        tweet.bind("tags", \.tags)
    }
}

struct HandTimeline: MappedModel {
    var tweets: [HandTweet] = []
    static let mapping = TypedModel<HandTimeline>("TimelineModel", make: { HandTimeline() }) { timeline in
        timeline.bind("tweets", \.tweets)
    }
}

/// A model of every kind of property the macro binds, renamed ones and a public nested type.
enum Outer {
    @MappedModel("Account")
    public struct Account {
        public var id = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        @MappedProperty("balance") public var amount: Decimal = 0
        public var homepage: URL?
        public var labels: Set<String> = []
        public var limits: [String: Int] = [:]
        public var extra: JSONValue = .null
        public var `default` = false
        public var opened: Date? {
            didSet { touched = true }
        }
        @MappedIgnored public var touched = false

        public init() {}
    }
}

@Suite("@MappedModel types, mapped")
struct MappedModelMappingTests {
    static func catalog<T: MappedModel>(_ type: T.Type) throws -> Catalog {
        var definitions = Definitions()
        definitions.register(type)
        var transformers = TransformerRegistry()
        transformers.add(LuaScripts(directory: Fixtures.scripts))
        return try Catalog.load([Fixtures.contexts], transformers: transformers, definitions: definitions)
    }

    @Test("the macro's model is the hand-written one's: same properties, types and order")
    func sameModels() {
        #expect(MacroTweet.mapping.model.properties.map(\.name) == HandTweet.mapping.model.properties.map(\.name))
        #expect(
            MacroTweet.mapping.model.properties.map(\.type.description)
                == HandTweet.mapping.model.properties.map(\.type.description))
        #expect(MacroTimeline.mapping.name == "TimelineModel")
        #expect(
            Outer.Account.mapping.model.properties.map(\.name) == [
                "id", "balance", "homepage", "labels", "limits", "extra", "default", "opened",
            ])
    }

    @Test("every Twitter example payload maps to the same values through the macro's types as the hand-written ones")
    func twitterExamples() throws {
        let macro = Mapper(catalog: try Self.catalog(MacroTimeline.self))
        let hand = Mapper(catalog: try Self.catalog(HandTimeline.self))
        let payloads = try FileManager.default.contentsOfDirectory(
            atPath: Fixtures.root.appendingPathComponent("Examples/twitter").path
        ).filter { $0.hasSuffix(".json") }.sorted()
        #expect(payloads.count >= 6)
        for name in payloads {
            let data = try Data(contentsOf: Fixtures.root.appendingPathComponent("Examples/twitter/\(name)"))
            let isArray = data.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) == UInt8(ascii: "[")
            if isArray {
                let typed = try macro.map(data, to: MacroTimeline.self, context: "$TimelineModel")
                let expected = try hand.map(data, to: HandTimeline.self, context: "$TimelineModel")
                #expect(typed.value.mappingValue.jsonText == expected.value.mappingValue.jsonText, "\(name)")
                #expect(typed.issues.map(\.description) == expected.issues.map(\.description), "\(name)")
                #expect(!typed.value.tweets.isEmpty, "\(name)")
            } else {
                let typed = try macro.map(data, to: MacroTweet.self, context: "$TweetModel")
                let expected = try hand.map(data, to: HandTweet.self, context: "$TweetModel")
                #expect(typed.value.mappingValue.jsonText == expected.value.mappingValue.jsonText, "\(name)")
                #expect(typed.issues.map(\.description) == expected.issues.map(\.description), "\(name)")
                #expect(!typed.value.seen)
            }
        }
        let tweet = try macro.map(
            Data(contentsOf: Fixtures.root.appendingPathComponent("Examples/twitter/tweet.json")), to: MacroTweet.self,
            context: "$TweetModel"
        ).value
        #expect(tweet.user.name == "Twitter API" && tweet.retweets == 121 && tweet.tags == ["twitter", "api"])
        #expect(tweet.coordinates == MacroCoordinate(latitude: 35.46500176, longitude: -97.51087576))
        #expect(tweet.summary.hasPrefix("Twitter API: Introducing"))
    }

    @Test("renamed, set, dictionary, JSON, backticked and observed properties map, and serialize back")
    func everyKind() throws {
        let contexts = """
            { "$Account": { "@class": "Account", "id": "id", "balance": "money.amount", "homepage": "web",
              "labels": "labels", "limits": "limits", "extra": "extra", "default": "isDefault", "opened": "opened" } }
            """
        var definitions = Definitions()
        definitions.register(Outer.Account.self)
        let catalog = try Catalog.load(
            ["a.mappings"], from: .memory(["a.mappings": contexts]), definitions: definitions)
        let mapper = Mapper(catalog: catalog)
        let payload = """
            {"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","money":{"amount":"12345678901234567890.25"},
             "web":"https://example.com/a","labels":["b","a"],"limits":{"day":5},"extra":{"k":[1,true]},
             "isDefault":true,"opened":"2024-02-29T12:00:00Z"}
            """
        let result = try mapper.map(Data(payload.utf8), to: Outer.Account.self, context: "$Account")
        #expect(result.issues.isEmpty, "\(result.issues)")
        let account = result.value
        #expect(account.id == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(account.amount == Decimal(string: "12345678901234567890.25"))
        #expect(account.homepage == URL(string: "https://example.com/a"))
        #expect(account.labels == ["a", "b"] && account.limits == ["day": 5])
        #expect(account.extra == (try JSONValue(parsing: Array(#"{"k":[1,true]}"#.utf8))))
        #expect(account.default && account.touched)
        #expect(account.opened == Date(timeIntervalSince1970: 1_709_208_000))
        let back = try mapper.payload(from: account, using: mapper.typedContext(Outer.Account.self, "$Account"))
        #expect(back.issues.isEmpty, "\(back.issues)")
        #expect(back.value.jsonText.contains(#""money":{"amount":12345678901234567890.25}"#), "\(back.value.jsonText)")
        #expect(back.value.jsonText.contains(#""isDefault":true"#) && !back.value.jsonText.contains("touched"))
    }
}
