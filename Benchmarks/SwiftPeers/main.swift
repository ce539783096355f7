import Foundation

// The benchmark's reshape with what Foundation offers a Swift program without Mappings:
// hand-written Codable structs through JSONDecoder and JSONEncoder, or JSONSerialization
// with dictionaries. Same output as the context $BenchTweet of Benchmarks/contexts/bench.mappings.
//   swift-peers-benchmark codable|serialization stream|document < input > output
// "stream" reads NDJSON and writes NDJSON (B1); "document" reads one JSON array and writes
// one JSON array (B3).

/// The statuses API's date format, read in UTC with the POSIX locale.
let apiDates: DateFormatter = {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "EEE MMM dd HH:mm:ss Z yyyy"
    return formatter
}()

nonisolated(unsafe) let isoDates = ISO8601DateFormatter()

/// An integer sent as a number or as a string.
struct FlexibleInt: Codable {
    let value: Int

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

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

struct InputUser: Decodable {
    let id_str: FlexibleInt
    let name: String
    let screen_name: String
    let url: URL?
    let followers_count: Int
    let verified: Bool?
    let created_at: Date
}

struct InputLink: Decodable {
    let url: URL
    let expanded_url: URL
}

struct InputHashtag: Decodable { let text: String }
struct InputMention: Decodable { let screen_name: String }

struct InputEntities: Decodable {
    let hashtags: [InputHashtag]
    let urls: [InputLink]
    let user_mentions: [InputMention]
}

struct InputTweet: Decodable {
    let id_str: FlexibleInt
    let text: String
    let created_at: Date
    let user: InputUser
    let entities: InputEntities
    let retweet_count: FlexibleInt?
    let favorite_count: FlexibleInt?
    let lang: String?
    let in_reply_to_status_id_str: FlexibleInt?
}

struct OutputUser: Encodable {
    let id: Int
    let name: String
    let screenName: String
    let url: URL?
    let followers: Int
    let verified: Bool
    let joined: Date

    enum CodingKeys: String, CodingKey { case id, name, screenName, url, followers, verified, joined }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(screenName, forKey: .screenName)
        try container.encode(url, forKey: .url)  // null when absent, as Mappings writes it
        try container.encode(followers, forKey: .followers)
        try container.encode(verified, forKey: .verified)
        try container.encode(joined, forKey: .joined)
    }
}

struct OutputLink: Encodable {
    let url: URL
    let expanded: URL
}

struct OutputTweet: Encodable {
    let id: Int
    let text: String
    let createdAt: Date
    let user: OutputUser
    let tags: [String]
    let links: [OutputLink]
    let mentions: [String]
    let retweets: Int
    let favorites: Int
    let lang: String?
    let replyTo: Int?

    enum CodingKeys: String, CodingKey {
        case id, text, createdAt, user, tags, links, mentions, retweets, favorites, lang, replyTo
    }

    init(_ input: InputTweet) {
        id = input.id_str.value
        text = input.text
        createdAt = input.created_at
        user = OutputUser(
            id: input.user.id_str.value, name: input.user.name, screenName: input.user.screen_name,
            url: input.user.url, followers: input.user.followers_count, verified: input.user.verified ?? false,
            joined: input.user.created_at)
        tags = input.entities.hashtags.map(\.text)
        links = input.entities.urls.map { OutputLink(url: $0.url, expanded: $0.expanded_url) }
        mentions = input.entities.user_mentions.map(\.screen_name)
        retweets = input.retweet_count?.value ?? 0
        favorites = input.favorite_count?.value ?? 0
        lang = input.lang
        replyTo = input.in_reply_to_status_id_str?.value
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(text, forKey: .text)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(user, forKey: .user)
        try container.encode(tags, forKey: .tags)
        try container.encode(links, forKey: .links)
        try container.encode(mentions, forKey: .mentions)
        try container.encode(retweets, forKey: .retweets)
        try container.encode(favorites, forKey: .favorites)
        try container.encode(lang, forKey: .lang)
        try container.encode(replyTo, forKey: .replyTo)
    }
}

/// The reshape through JSONSerialization: dictionaries in, dictionaries out.
func reshape(_ object: Any) -> [String: Any] {
    let record = object as! [String: Any]
    let user = record["user"] as! [String: Any]
    let entities = record["entities"] as! [String: Any]
    func date(_ value: Any?) -> String { isoDates.string(from: apiDates.date(from: value as! String)!) }
    func int(_ value: Any?) -> Int {
        if let string = value as? String { return Int(string)! }
        return (value as! NSNumber).intValue
    }
    func optional(_ value: Any?) -> Any { value.flatMap { $0 is NSNull ? nil : $0 } ?? NSNull() }
    let reply = optional(record["in_reply_to_status_id_str"])
    return [
        "id": int(record["id_str"]),
        "text": record["text"]!,
        "createdAt": date(record["created_at"]),
        "user": [
            "id": int(user["id_str"]), "name": user["name"]!, "screenName": user["screen_name"]!,
            "url": optional(user["url"]), "followers": int(user["followers_count"]),
            "verified": (user["verified"] as? Bool) ?? false, "joined": date(user["created_at"]),
        ] as [String: Any],
        "tags": (entities["hashtags"] as! [[String: Any]]).map { $0["text"]! },
        "links": (entities["urls"] as! [[String: Any]]).map { ["url": $0["url"]!, "expanded": $0["expanded_url"]!] },
        "mentions": (entities["user_mentions"] as! [[String: Any]]).map { $0["screen_name"]! },
        "retweets": record["retweet_count"].map(int) ?? 0,
        "favorites": record["favorite_count"].map(int) ?? 0,
        "lang": optional(record["lang"]),
        "replyTo": reply is NSNull ? reply : int(reply),
    ]
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let peer = arguments.first, ["codable", "serialization"].contains(peer),
    let shape = arguments.last, ["stream", "document"].contains(shape)
else {
    FileHandle.standardError.write(Data("usage: swift-peers-benchmark codable|serialization stream|document\n".utf8))
    exit(2)
}
let input = FileHandle.standardInput.readDataToEndOfFile()
let decoder = JSONDecoder()
decoder.dateDecodingStrategy = .formatted(apiDates)
let encoder = JSONEncoder()
encoder.dateEncodingStrategy = .iso8601
encoder.outputFormatting = [.withoutEscapingSlashes]
var output = Data()
output.reserveCapacity(input.count / 2)

switch (peer, shape) {
case ("codable", "stream"):
    for line in input.split(separator: UInt8(ascii: "\n")) {
        output.append(try encoder.encode(OutputTweet(try decoder.decode(InputTweet.self, from: line))))
        output.append(UInt8(ascii: "\n"))
    }
case ("codable", _):
    output.append(try encoder.encode(try decoder.decode([InputTweet].self, from: input).map(OutputTweet.init)))
case (_, "stream"):
    for line in input.split(separator: UInt8(ascii: "\n")) {
        let object = try JSONSerialization.jsonObject(with: line)
        output.append(try JSONSerialization.data(withJSONObject: reshape(object), options: [.withoutEscapingSlashes]))
        output.append(UInt8(ascii: "\n"))
    }
default:
    let array = try JSONSerialization.jsonObject(with: input) as! [Any]
    output.append(try JSONSerialization.data(withJSONObject: array.map(reshape), options: [.withoutEscapingSlashes]))
}
FileHandle.standardOutput.write(output)
