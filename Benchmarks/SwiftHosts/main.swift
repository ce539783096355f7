import Foundation
import MappingsMacros

// B9, Swift hosts: the small shape's records (Benchmarks/generate.py --shape small) into the same
// Swift values four ways, in one process, timed per record:
//   jsondecoder  JSONDecoder into Decodable structs of the payload's shape, then the host's value
//                (ids from strings, the hashtags' texts, defaults) — Codable alone
//   decode       mapper.decode(SmallTweet.self, from:, context: "$SmallTweet") — Codable through a context
//   macro        mapper.map(_:to:context:) into @MappedModel structs
//   hand         the same into structs bound by hand with TypedModel
// Every record's four values are compared before anything is timed.
//   swift-host-benchmark RECORDS.ndjson CONTEXTS_DIR [ROUNDS]

/// The host's value, as the context $SmallTweet of Benchmarks/contexts/small.mappings builds it.
struct SmallTweet: Codable, Equatable {
    struct User: Codable, Equatable {
        var id: Int
        var name: String
        var screenName: String
        var url: URL?
        var followers: Int
        var verified: Bool
        var joined: Date
    }
    var id: Int
    var createdAt: Date
    var text: String
    var user: User
    var tags: [String]
    var retweets: Int
    var lang: String?
    var replyTo: Int?
}

/// An integer sent as a number or as a string (the shape sends counts either way).
struct FlexibleInt: Decodable {
    var value: Int

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            value = number
        } else if let parsed = Int(try container.decode(String.self)) {
            value = parsed
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an integer")
        }
    }
}

/// The payload's shape, for JSONDecoder.
struct PayloadTweet: Decodable {
    struct User: Decodable {
        var id_str: String
        var name: String
        var screen_name: String
        var url: URL?
        var followers_count: FlexibleInt
        var verified: Bool?
        var created_at: Date
    }
    struct Tag: Decodable { var text: String }
    var id_str: String
    var created_at: Date
    var text: String
    var user: User
    var hashtags: [Tag]
    var retweet_count: FlexibleInt?
    var lang: String?
    var in_reply_to_status_id_str: String?

    struct NotAnInteger: Error {}

    func value() throws -> SmallTweet {
        guard let id = Int(id_str), let userID = Int(user.id_str) else { throw NotAnInteger() }
        return SmallTweet(
            id: id, createdAt: created_at, text: text,
            user: SmallTweet.User(
                id: userID, name: user.name, screenName: user.screen_name, url: user.url,
                followers: user.followers_count.value, verified: user.verified ?? false, joined: user.created_at),
            tags: hashtags.map(\.text), retweets: retweet_count?.value ?? 0, lang: lang,
            replyTo: try in_reply_to_status_id_str.map { reply in
                guard let value = Int(reply) else { throw NotAnInteger() }
                return value
            })
    }
}

@MappedModel("SmallUser")
struct MacroUser {
    var id = 0
    var name = ""
    var screenName = ""
    var url: URL?
    var followers = 0
    var verified = false
    var joined = Date(timeIntervalSince1970: 0)
}

@MappedModel("SmallTweet")
struct MacroTweet {
    var id = 0
    var createdAt = Date(timeIntervalSince1970: 0)
    var text = ""
    var user = MacroUser()
    var tags: [String] = []
    var retweets = 0
    var lang: String?
    var replyTo: Int?

    var value: SmallTweet {
        SmallTweet(
            id: id, createdAt: createdAt, text: text,
            user: SmallTweet.User(
                id: user.id, name: user.name, screenName: user.screenName, url: user.url, followers: user.followers,
                verified: user.verified, joined: user.joined),
            tags: tags, retweets: retweets, lang: lang, replyTo: replyTo)
    }
}

struct HandUser: MappedModel {
    var id = 0
    var name = ""
    var screenName = ""
    var url: URL?
    var followers = 0
    var verified = false
    var joined = Date(timeIntervalSince1970: 0)

    static let mapping = TypedModel<HandUser>("SmallUser", make: { HandUser() }) { user in
        user.bind("id", \.id)
        user.bind("name", \.name)
        user.bind("screenName", \.screenName)
        user.bind("url", \.url)
        user.bind("followers", \.followers)
        user.bind("verified", \.verified)
        user.bind("joined", \.joined)
    }
}

struct HandTweet: MappedModel {
    var id = 0
    var createdAt = Date(timeIntervalSince1970: 0)
    var text = ""
    var user = HandUser()
    var tags: [String] = []
    var retweets = 0
    var lang: String?
    var replyTo: Int?

    static let mapping = TypedModel<HandTweet>("SmallTweet", make: { HandTweet() }) { tweet in
        tweet.bind("id", \.id)
        tweet.bind("createdAt", \.createdAt)
        tweet.bind("text", \.text)
        tweet.bind("user", \.user)
        tweet.bind("tags", \.tags)
        tweet.bind("retweets", \.retweets)
        tweet.bind("lang", \.lang)
        tweet.bind("replyTo", \.replyTo)
    }

    var value: SmallTweet {
        SmallTweet(
            id: id, createdAt: createdAt, text: text,
            user: SmallTweet.User(
                id: user.id, name: user.name, screenName: user.screenName, url: user.url, followers: user.followers,
                verified: user.verified, joined: user.joined),
            tags: tags, retweets: retweets, lang: lang, replyTo: replyTo)
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: swift-host-benchmark RECORDS.ndjson CONTEXTS_DIR [ROUNDS]\n".utf8))
    exit(2)
}
let records = try Data(contentsOf: URL(fileURLWithPath: arguments[1])).split(separator: UInt8(ascii: "\n")).map {
    Data($0)
}
let contexts = URL(fileURLWithPath: arguments[2]).appendingPathComponent("small.mappings").path
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5

func mapper(registering register: (inout Definitions) -> Void) throws -> Mapper {
    var definitions = Definitions()
    register(&definitions)
    // $SmallTweetWithHandle's transformer (unused here: the file loads with it resolved).
    var transformers = TransformerRegistry()
    transformers.register(className: "BenchTransformers", selector: "handle:") { value, _ in
        guard case .string(let name) = value else { return .null }
        return .string("@" + name)
    }
    return Mapper(catalog: try Catalog.load([contexts], transformers: transformers, definitions: definitions))
}
let plain = try mapper { _ in }
let macro = try mapper { $0.register(MacroTweet.self) }
let hand = try mapper { $0.register(HandTweet.self) }
let decoder = JSONDecoder()
decoder.dateDecodingStrategy = .iso8601

let methods: [(name: String, map: (Data) throws -> SmallTweet)] = [
    ("jsondecoder", { try decoder.decode(PayloadTweet.self, from: $0).value() }),
    (
        "decode",
        { data in
            let result = try plain.decode(SmallTweet.self, from: data, context: "$SmallTweet")
            guard let value = result.value, !result.hasErrors else { throw Failure(description: "\(result.issues)") }
            return value
        }
    ),
    (
        "macro",
        { data in
            let result = try macro.map(data, to: MacroTweet.self, context: "$SmallTweet")
            guard !result.hasErrors else { throw Failure(description: "\(result.issues)") }
            return result.value.value
        }
    ),
    (
        "hand",
        { data in
            let result = try hand.map(data, to: HandTweet.self, context: "$SmallTweet")
            guard !result.hasErrors else { throw Failure(description: "\(result.issues)") }
            return result.value.value
        }
    ),
]

// The same value from every method, for every record.
for (index, record) in records.enumerated() {
    let expected = try methods[0].map(record)
    for method in methods.dropFirst() {
        let value = try method.map(record)
        guard value == expected else {
            throw Failure(description: "record \(index + 1): \(method.name) gives \(value), jsondecoder \(expected)")
        }
    }
}

// Median of `rounds` passes over every record, in nanoseconds a record; methods alternate.
var timings: [String: [Double]] = [:]
for _ in 0..<rounds {
    for method in methods {
        let clock = ContinuousClock()
        let start = clock.now
        for record in records { _ = try method.map(record) }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        timings[method.name, default: []].append(seconds * 1e9 / Double(records.count))
    }
}
for method in methods {
    let sorted = timings[method.name, default: []].sorted()
    print("\(method.name) \(Int(sorted[sorted.count / 2]))")
}
