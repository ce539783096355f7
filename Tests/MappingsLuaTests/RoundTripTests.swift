import Foundation
import Mappings
import MappingsLua
import Testing

/// Map, serialize back through the same context, map again: the same object.
@Suite("Reverse mapping round trips")
struct RoundTripTests {
    /// Maps `payload`, writes the object back as JSON text, parses and maps that: both objects
    /// must be equal, and the reverse must report nothing.
    static func roundTrip(
        _ payload: JSONValue, _ context: String, _ mapper: Mapper,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> Bool {
        let first = try mapper.object(from: payload, context: context)
        let back = try mapper.payload(from: first.value, context: context)
        #expect(back.issues.isEmpty, "\(back.issues)", sourceLocation: sourceLocation)
        let text = JSONWriter.string(back.value)
        let second = try mapper.object(from: try JSONParser.parse(text), context: context)
        // A value that failed to map is not in the object, so its default (say) may stand in
        // for it the second time: only a clean mapping must come back the same.
        guard first.issues.isEmpty else { return false }
        #expect(
            second.value == first.value,
            "\(context): \(JSONWriter.string(first.value)) came back as \(JSONWriter.string(second.value)) through \(text)",
            sourceLocation: sourceLocation)
        return true
    }

    @Test("every @tests vector and example payload of the shipped contexts")
    func shipped() throws {
        let mapper = Mapper(catalog: try Shipped.catalog())
        var count = 0
        for context in mapper.catalog.contexts {
            guard let identifier = context.identifier else { continue }
            for test in context.tests where !test.many {
                if try Self.roundTrip(test.input, identifier, mapper) { count += 1 }
            }
        }
        for name in ["tweet.json", "tweet-geo.json", "broken-tweet.json"] {
            for context in ["$TweetModel", "$TweetModel_Details"] {
                if try Self.roundTrip(try Shipped.payload(name), context, mapper) { count += 1 }
            }
        }
        if try Self.roundTrip(try Shipped.payload("timeline.json"), "$TimelineModel", mapper) { count += 1 }
        #expect(count == 5)  // the two vectors that expect issues, tweet-geo.json and broken-tweet.json are not clean
    }

    @Test("the walkthrough's variants and the benchmark's tweet")
    func variants() throws {
        let twitter = Mapper(
            catalog: try Shipped.catalog(paths: [Shipped.root.appendingPathComponent("Examples/twitter").path]))
        var clean = Set<String>()
        for context in twitter.catalog.identifiers {
            for name in ["tweet.json", "tweet-geo.json", "tweet-root-coordinates.json"] {
                if try Self.roundTrip(try Shipped.payload(name), context, twitter) { clean.insert(context) }
            }
        }
        #expect(clean.count >= 5, "\(clean.sorted())")
        var transformers = TransformerRegistry()
        transformers.add(LuaScripts(directory: Shipped.root.appendingPathComponent("Benchmarks/scripts").path))
        let bench = Mapper(
            catalog: try Catalog.load(
                [Shipped.root.appendingPathComponent("Benchmarks/contexts").path], transformers: transformers))
        let vectors = try #require(bench.catalog.context("$BenchTweet")?.tests)
        #expect(!vectors.isEmpty)
        for test in vectors { #expect(try Self.roundTrip(test.input, "$BenchTweet", bench)) }
    }

    @Test("200 generated tweets and timelines (seeded)")
    func generated() throws {
        let mapper = Mapper(catalog: try Shipped.catalog())
        var random = Xorshift(seed: 0x5EED_0007)
        for round in 0..<200 {
            let tweet = Self.tweet(&random)
            #expect(try Self.roundTrip(tweet, round % 2 == 0 ? "$TweetModel" : "$TweetModel_Details", mapper))
            if round % 20 == 0 {
                let tweets = JSONValue.array((0..<Int(random.next() % 4)).map { _ in Self.tweet(&random) })
                #expect(try Self.roundTrip(tweets, "$TimelineModel", mapper))
            }
        }
    }

    @Test("an entry with a transformer and no reverse is left out, with an issue")
    func missingReverse() throws {
        var definitions = Definitions()
        definitions.context("$Plain", class: "Coordinate2D") { plain in
            plain.map("latitude", from: "position", transform: .named("MyTransformers", "coordinate2DFromFloatArray"))
            plain.map("longitude", from: "x", defaultValue: 1)
        }
        let mapper = Mapper(catalog: try Shipped.catalog(definitions))
        var plain = ModelObject(model: try #require(mapper.catalog.models["Coordinate2D"]))
        plain.slots = [.double(1.5), .double(2.5)]
        let partial = try mapper.payload(from: .object(plain), context: "$Plain")
        #expect(JSONWriter.string(partial.value) == #"{"x":2.5}"#)
        #expect(
            partial.issues.map(\.message) == [
                #"MyTransformers.coordinate2DFromFloatArray has no reverse transformer ("@reverseTransformSelector"): Coordinate2D.latitude is left out (an entry that is never serialized says "@reverse": false)"#
            ])
        #expect(partial.issues.first?.rule.location.file == "MappingsLuaTests/RoundTripTests.swift")
        #expect(partial.issues.first?.path == "$.position")
        #expect(partial.issues.first?.property == "Coordinate2D.latitude")
    }

    static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE MMM dd HH:mm:ss Z yyyy"
        return formatter
    }()

    static func tweet(_ random: inout Xorshift) -> JSONValue {
        func text(_ length: Int) -> String {
            let alphabet = Array("abc XYZ 09 \"\\/\n\t é漢字🙂<>&")
            return String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        }
        var tweet = JSONObject()
        tweet["id_str"] = .string(String(random.next() % 1_000_000_000_000))
        tweet["text"] = .string(text(Int(random.next() % 40)))
        if random.next() % 3 != 0 {
            tweet["created_at"] = .string(
                formatter.string(from: Date(timeIntervalSince1970: Double(random.next() % 2_000_000_000))))
        }
        switch random.next() % 3 {
        case 0: tweet["retweet_count"] = .integer(Int64(random.next() % 100_000))
        case 1: tweet["retweet_count"] = .string(String(random.next() % 100_000))
        default: break
        }
        if random.next() % 2 == 0 {
            let long = Double(Int64(random.next() % 360_000_000) - 180_000_000) / 1_000_000
            let lat = Double(Int64(random.next() % 180_000_000) - 90_000_000) / 1_000_000
            tweet["coordinates"] = ["long": .double(long), "lat": .double(lat)]
        }
        if random.next() % 4 != 0 {
            let tags = (0..<Int(random.next() % 4)).map { _ -> JSONValue in ["text": .string(text(6))] }
            tweet["entities"] = ["hashtags": .array(tags)]
        }
        var user = JSONObject()
        user["name"] = .string(text(10))
        if random.next() % 2 == 0 {
            user["profile_image_url"] = .string("https://example.com/\(random.next() % 1000)/a%20b.png")
        }
        tweet["user"] = .object(user)
        if random.next() % 5 == 0 { tweet["full_text"] = .string(text(60)) }
        return .object(tweet)
    }
}

/// A small seeded generator (xorshift64*), so a failing case comes back on every run.
struct Xorshift: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 1 : seed }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
