import Foundation
import Mappings
import Testing
import TwitterModels

/// A typed tweet written back as the payload its context reads, and mapped again.
@Suite("Reverse mapping of the examples' Twitter models")
struct RoundTripTests {
    @Test("typed instances serialize through their context")
    func typed() throws {
        var definitions = Definitions()
        definitions.register(Tweet.self)
        let mapper = Mapper(catalog: try Shipped.catalog(definitions))
        let tweet = try mapper.object(
            Tweet.self, from: try Shipped.payload("tweet.json"), using: mapper.typedContext(Tweet.self, "$TweetModel")
        ).value
        let back = try mapper.payload(from: tweet, using: mapper.context("$TweetModel"))
        #expect(back.issues.isEmpty)
        guard case .dictionary(var written) = back.value else {
            Issue.record("not an object: \(back.value.jsonText)")
            return
        }
        // The Lua table's keys come in the interpreter's order.
        let coordinates = (written["coordinates"] ?? .null).jsonText
        #expect(coordinates.contains(#""long":-97.51087576"#) && coordinates.contains(#""lat":35.46500176"#))
        written["coordinates"] = nil
        #expect(
            Value.dictionary(written).jsonText
                == #"{"id_str":"240859602684612608","text":"Introducing the Twitter Certified Products Program: https://t.co/MjJ8xAnT","user":{"name":"Twitter API","profile_image_url":"http://a0.twimg.com/profile_images/2284174872/7df3h38zabcvjylnyfe3_normal.png"},"created_at":"Wed Aug 29 17:12:58 +0000 2012","retweet_count":121,"entities":{"hashtags":[{"text":"twitter"},{"text":"api"}]}}"#
        )
        let again = mapper.object(
            Tweet.self, from: try JSONValue(parsing: back.value.jsonText),
            using: try mapper.typedContext(Tweet.self, "$TweetModel"))
        #expect(again.value == tweet)

        let many = try mapper.payloads(
            from: [tweet.mappingValue, tweet.mappingValue], using: mapper.context("$TweetModel"))
        guard case .array(let payloads) = many.value else {
            Issue.record("not an array")
            return
        }
        #expect(payloads.count == 2)
    }
}
