import Foundation
import Mappings
import Testing
import TwitterModels

@Suite("Contexts declared in Swift")
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
            let expected = try Mapper(catalog: file).object(from: payload, context: context)
            let actual = try Mapper(catalog: code).object(from: payload, context: context)
            #expect(JSONWriter.string(actual.value) == JSONWriter.string(expected.value), "\(name) with \(context)")
            #expect(actual.issues.map(\.message) == expected.issues.map(\.message), "\(name) with \(context)")
            #expect(actual.issues.map(\.path) == expected.issues.map(\.path))
        }
        let payload = try Shipped.payload("timeline.json")
        let typedFile = try Mapper(catalog: file).object(Timeline.self, from: payload, context: "$TimelineModel")
        let typedCode = try Mapper(catalog: code).object(Timeline.self, from: payload, context: "$TimelineModel")
        #expect(typedCode.value == typedFile.value)
        #expect(typedCode.value.tweets.first?.user.name == typedFile.value.tweets.first?.user.name)
        // The rules name the Swift lines that declared them.
        let rule = try #require(code.context("$TweetModel")?.rules.first)
        #expect(rule.provenance.location.file == "MappingsLuaTests/ProgrammaticContextTests.swift")
        #expect(code.context("$UserModel")?.tests.count == 1)
    }

    @Test("closures next to Lua, nested inline contexts, dictionaries, JSON reshaping")
    func closures() throws {
        var definitions = Definitions()
        definitions.model(
            "Place", ["name": "String", "tags": "[String]", "where": "Coordinate2D?", "owners": "[String: UserModel]"])
        let closureLine = #line + 2
        definitions.context("$Place", class: "Place") { place in
            place.map(
                "name", from: "title",
                transform: .closure(userData: "!") { value, userData in
                    guard case .string(let text) = value, case .string(let suffix)? = userData else {
                        throw MappingsError.transformerFailed("expected a string")
                    }
                    return .string(text.uppercased() + suffix)
                })
            place.map("tags", from: "labels", optional: true, insertContentAtBegin: true)
            place.map(
                "where", from: "geo", optional: true, transform: .named("MyTransformers", "coordinate2DFromFloatArray"))
            place.map(
                "owners", from: "owners", optional: true,
                object: .inline(class: "UserModel") { user in user.map("name", from: "login") })
        }
        definitions.context("$Summary") { summary in
            summary.map("title", from: "title")
            summary.map("when", from: "at", type: "Date", dateFormat: "yyyy-MM-dd")
            summary.map("first", from: "labels.@first", optional: true)
        }
        let mapper = Mapper(catalog: try Shipped.catalog(definitions, paths: [Shipped.contexts + "/models.mappings"]))
        let payload: JSONValue = [
            "title": "cafe", "labels": ["a", "b"], "geo": [2.5, 48.5], "at": "2020-02-03",
            "owners": ["x": ["login": "ann"], "y": ["login": "bo"]],
        ]
        let place = try mapper.object(from: payload, context: "$Place")
        #expect(place.issues.isEmpty)
        #expect(
            JSONWriter.string(place.value)
                == #"{"name":"CAFE!","tags":["a","b"],"where":{"latitude":48.5,"longitude":2.5},"owners":{"x":{"name":"ann","imageUrl":null},"y":{"name":"bo","imageUrl":null}}}"#
        )
        let failed = try mapper.object(from: ["title": 3], context: "$Place")
        #expect(
            failed.issues.map(\.message) == [
                "Closure.MappingsLuaTests/ProgrammaticContextTests.swift#\(closureLine)#0 failed: expected a string"
            ])
        #expect(failed.issues.first?.rule.location.line == closureLine)
        let summary = try mapper.object(from: payload, context: "$Summary")
        #expect(JSONWriter.string(summary.value) == #"{"title":"cafe","when":"2020-02-03T00:00:00Z","first":"a"}"#)
    }

    @Test("a mistake in a context built in Swift is a load-time error at the Swift line, with its source")
    func diagnostics() throws {
        var definitions = Definitions()
        var namLine = 0
        definitions.context("$User", class: "UserModel") { user in
            namLine = #line + 1
            user.map("nam", from: "name")
            user.map("imageUrl", from: "u", defaultValue: 3)
            user.map("name", from: "x", transform: .named("Nowhere", "f"))
        }
        definitions.context("$Broken", class: "UserModl") { _ in }
        do {
            _ = try Shipped.catalog(definitions, paths: [Shipped.contexts + "/models.mappings"])
            Issue.record("loaded")
        } catch let error as MappingsError {
            let text = error.description
            let file = "MappingsLuaTests/ProgrammaticContextTests.swift"
            #expect(text.contains("no property \"nam\""), "\(text)")
            #expect(text.contains("did you mean \"name\""))
            #expect(text.contains("--> \(file):\(namLine):13"))
            #expect(text.contains(#"user.map("nam", from: "name")"#))
            #expect(text.contains("the default value of \"imageUrl\" cannot become URL?"))
            #expect(text.contains("no transformer \"Nowhere.f\""))
            #expect(text.contains("unknown class \"UserModl\""))
        }
    }
}
