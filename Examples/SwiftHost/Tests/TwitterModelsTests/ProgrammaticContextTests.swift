import Foundation
import Mappings
import Testing
import TwitterModels

/// The shipped Twitter contexts written in Swift, against the files, into the examples' models.
@Suite("Contexts declared in Swift: the Twitter contexts")
struct ProgrammaticContextTests {
    /// `contexts/twitter.mappings`, written with the builder.
    static func twitter(_ definitions: inout Definitions) {
        definitions.context("$UserModel", class: "UserModel") { user in
            user.map("name", from: "name")
            user.map(
                "imageUrl", from: "profile_image_url", optional: true,
                defaultValue: "https://si0.twimg.com/profile_images/1251071930/Untitled.png")
            user.test(
                "the placeholder image", input: ["name": "Ann"],
                output: ["name": "Ann", "imageUrl": "https://si0.twimg.com/profile_images/1251071930/Untitled.png"])
        }
        definitions.context("$TweetModel", class: "TweetModel") { tweet in
            tweet.map("identifier", from: "id_str")
            tweet.map("message", from: "text")
            tweet.map("user", from: "user", object: .context("$UserModel"))
            tweet.map(
                "coordinates", from: "coordinates", optional: true,
                transform: .named(
                    "MyTransformers", "coordinate2DFromDictionary:userData:error:",
                    userData: ["longitude": "long", "latitude": "lat"]))
            tweet.map("createdAt", from: "created_at", optional: true, dateFormat: "EEE MMM dd HH:mm:ss Z yyyy")
            tweet.map("retweets", from: "retweet_count", defaultValue: 0)
            tweet.map("tags", from: "entities.hashtags.text", optional: true)
        }
        definitions.context("$TweetModel_Details", inherits: ["$TweetModel"]) { details in
            details.map("message", from: "full_text", optional: true)
        }
        definitions.context("$TimelineModel", class: "TimelineModel") { timeline in
            timeline.map("tweets", object: .context("$TweetModel"), clearContent: true)
        }
    }

    static func catalogs(register: Bool) throws -> (file: Catalog, code: Catalog) {
        var definitions = Definitions()
        if register { definitions.register(Timeline.self) }
        let file = try Shipped.catalog(definitions)
        twitter(&definitions)
        let code = try Shipped.catalog(definitions, paths: [Shipped.contexts + "/models.mappings"])
        return (file, code)
    }

    @Test("the Twitter contexts built in Swift map like the shipped file, dynamic and typed")
    func sameAsFile() throws {
        let (file, code) = try Self.catalogs(register: true)
        #expect(code.identifiers == ["$UserModel", "$TweetModel", "$TweetModel_Details", "$TimelineModel"])
        let payloads: [(String, String)] = [
            ("tweet.json", "$TweetModel"), ("tweet.json", "$TweetModel_Details"), ("broken-tweet.json", "$TweetModel"),
            ("timeline.json", "$TimelineModel"), ("tweet-geo.json", "$TweetModel"),
        ]
        for (name, context) in payloads {
            let payload = try Shipped.payload(name)
            let expected = try Mapper(catalog: file).object(
                from: payload, using: Mapper(catalog: file).context(context))
            let actual = try Mapper(catalog: code).object(from: payload, using: Mapper(catalog: code).context(context))
            #expect(actual.value.jsonText == expected.value.jsonText, "\(name) with \(context)")
            #expect(actual.issues.map(\.message) == expected.issues.map(\.message), "\(name) with \(context)")
            #expect(actual.issues.map(\.path) == expected.issues.map(\.path))
        }
        let payload = try Shipped.payload("timeline.json")
        let typedFile = try Mapper(catalog: file).object(
            Timeline.self, from: payload, using: Mapper(catalog: file).typedContext(Timeline.self, "$TimelineModel"))
        let typedCode = try Mapper(catalog: code).object(
            Timeline.self, from: payload, using: Mapper(catalog: code).typedContext(Timeline.self, "$TimelineModel"))
        #expect(typedCode.value == typedFile.value)
        #expect(typedCode.value.tweets.first?.user.name == typedFile.value.tweets.first?.user.name)
        // The rules name the Swift lines that declared them.
        let mapper = Mapper(catalog: code)
        let explained = mapper.explain(try Shipped.payload("tweet.json"), using: try mapper.context("$TweetModel"))
        let rule = try #require(explained.explanations.first?.rule)
        #expect(rule.location.file == "TwitterModelsTests/ProgrammaticContextTests.swift")
        #expect(ContextTestRunner.run(code, contexts: ["$UserModel"]).map(\.passed) == [true])
    }
}
