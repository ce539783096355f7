import Foundation
import Mappings
import Testing

/// Every supported property type through a model of the test's own; the Twitter models of
/// the examples are tested with them (Examples/SwiftHost/Tests/TwitterModelsTests).
@Suite("Typed models through key paths")
struct TypedModelTests {
    static func registered<T: MappedModel>(_ type: T.Type) -> Definitions {
        var definitions = Definitions()
        definitions.register(type)
        return definitions
    }

    enum Kind: String, MappableValue {
        case tweet, reply
    }

    struct Post: MappedModel {
        var kind = Kind.tweet
        var kinds: [Kind] = []
        var score: Decimal = 0
        var id = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        var counts: [String: Int] = [:]
        var extra: JSONValue = .null
        var ratio: Double?
        var flag = false

        static let mapping = TypedModel<Post>("Post", make: { Post() }) { post in
            post.bind("kind", \.kind)
            post.bind("kinds", \.kinds)
            post.bind("score", \.score)
            post.bind("id", \.id)
            post.bind("counts", \.counts)
            post.bind("extra", \.extra)
            post.bind("ratio", \.ratio)
            post.bind("flag", \.flag)
        }
    }

    static let postContexts = """
        { "$Post": { "@class": "Post", "kind": "type", "kinds": { "@keyPath": "types", "@optional": true },
          "score": "score", "id": "uuid", "counts": { "@keyPath": "counts", "@optional": true },
          "extra": { "@keyPath": "extra", "@optional": true }, "ratio": { "@keyPath": "ratio", "@optional": true },
          "flag": { "@keyPath": "flag", "@defaultValue": "yes" } } }
        """

    struct Price: MappedModel {
        var written = ExactDecimal(0)
        var value: Decimal = 0
        var all: [ExactDecimal] = []

        static let mapping = TypedModel<Price>("Price", make: { Price() }) { price in
            price.bind("written", \.written)
            price.bind("value", \.value)
            price.bind("all", \.all)
        }
    }

    @Test("an ExactDecimal property keeps the digits and scale as written, both ways; a Decimal the value")
    func exactDecimals() throws {
        let contexts = #"{ "$Price": { "@class": "Price", "written": "amount", "value": "same", "all": "amounts" } }"#
        let catalog = try Catalog.load(
            ["p.mappings"], from: .memory(["p.mappings": contexts]), definitions: Self.registered(Price.self))
        let mapper = Mapper(catalog: catalog)
        let result = try mapper.map(
            Data(#"{"amount": 1.10, "same": 1.10, "amounts": ["-0.0", 0.000, 1.0E+2]}"#.utf8), to: Price.self,
            context: "$Price")
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.value.written.text == "1.10" && result.value.value == Decimal(string: "1.1"))
        #expect(result.value.all.map(\.text) == ["-0.0", "0.000", "100"])
        let back = mapper.payload(from: result.value.mappingValue, using: try mapper.typedContext(Price.self, "$Price"))
        // Foundation's decimal has no scale to give back.
        #expect(back.value.jsonText == #"{"amount":1.10,"same":1.1,"amounts":[-0.0,0.000,100]}"#)
    }

    @Test("one call maps bytes into a type, an array of it, or an existing instance; errors apart from warnings")
    func oneCall() throws {
        let catalog = try Catalog.load(
            ["p.mappings"], from: .memory(["p.mappings": Self.postContexts]), definitions: Self.registered(Post.self))
        let mapper = Mapper(catalog: catalog)
        let uuid = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        let one = try mapper.map(
            Data(#"{"type":"reply","score":"1.5","uuid":"\#(uuid)"}"#.utf8), to: Post.self, context: "$Post")
        #expect(one.errors.isEmpty && one.warnings.isEmpty && !one.hasErrors)
        #expect(one.value.kind == .reply && one.value.score == Decimal(string: "1.5"))
        let many = try mapper.map(
            Data(#"[{"type":"tweet","score":1,"uuid":"\#(uuid)"},{"type":"quote","score":2,"uuid":"\#(uuid)"}]"#.utf8),
            to: [Post].self, context: "$Post")
        #expect(many.value.map(\.score) == [1, 2])
        #expect(many.errors.map(\.path) == ["$[1].type"] && many.hasErrors)
        var existing = Post()
        existing.ratio = 0.25
        let issues = try mapper.map(
            Data(#"{"type":"reply","score":3,"uuid":"\#(uuid)"}"#.utf8), into: &existing, context: "$Post")
        #expect(issues.isEmpty && existing.kind == .reply && existing.ratio == 0.25)
        // Not JSON, and no such context: errors that say so.
        #expect {
            try mapper.map(Data("{".utf8), to: Post.self, context: "$Post")
        } throws: { ($0 as? MappingsError)?.kind == .invalidInput }
        #expect {
            try mapper.map(Data("{}".utf8), to: Post.self, context: "$Pots")
        } throws: { ($0 as? MappingsError)?.kind == .unknownName }
    }

    struct Extra: Codable, Equatable {
        var x: [Int]
    }

    /// A `Decodable` type of the host's, conforming to nothing of the package.
    struct PostRecord: Codable, Equatable {
        var kind: String
        var kinds: [String]?
        var score: Decimal
        var id: UUID
        var counts: [String: Int]?
        var extra: Extra?
        var ratio: Double?
        var flag: Bool
    }

    struct NeedsMore: Decodable {
        var kind: String
        var author: String
    }

    @Test("a context that maps nothing to a required property of a Swift-bound model is a load-time warning")
    func unmappedRequired() throws {
        let contexts = """
            { "$Post": { "@class": "Post", "kind": "type", "score": "score", "id": "uuid",
                "ratio": { "@keyPath": "ratio", "@optional": true } },
              "$Full": { "@inherits": "$Post", "kinds": "types", "counts": "counts", "extra": "extra", "flag": "flag" } }
            """
        let catalog = try Catalog.load(
            ["p.mappings"], from: .memory(["p.mappings": contexts]), definitions: Self.registered(Post.self))
        #expect(catalog.warnings.count == 1)
        let warning = try #require(catalog.warnings.first)
        #expect(
            warning.message
                == #""$Post" builds Post but maps nothing to its required properties "kinds" ([String]), "counts" ([String: Int]), "extra" (JSON), "flag" (Bool): each MappingsEngineTests.TypedModelTests.Post it makes keeps what init() gave"#,
            "\(warning.message)")
        #expect(warning.location?.line == 1 && warning.location?.file == "p.mappings")
        #expect(warning.help == "map them in the context, or make the Swift properties optional")
        // A model of a file alone is not bound to a Swift type: nothing keeps a placeholder.
        let untyped = try Catalog.load(
            ["q.mappings"],
            from: .memory([
                "q.mappings":
                    #"{ "@models": { "M": { "a": "String", "b": "Int" } }, "$M": { "@class": "M", "a": "a" } }"#
            ]))
        #expect(untyped.warnings.isEmpty)
    }

    @Test("a Decodable type decodes from what the context maps; a key it needs and the mapping lacks is an issue")
    func decodable() throws {
        let catalog = try Catalog.load(
            ["p.mappings"], from: .memory(["p.mappings": Self.postContexts]), definitions: Self.registered(Post.self))
        let mapper = Mapper(catalog: catalog)
        let uuid = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        let data = Data(
            #"{"type":"reply","types":["tweet"],"score":"12.50","uuid":"\#(uuid)","counts":{"a":"2"},"extra":{"x":[1,2]}}"#
                .utf8)
        let decoded = try mapper.decode(PostRecord.self, from: data, context: "$Post")
        #expect(decoded.issues.isEmpty)
        #expect(
            decoded.value
                == PostRecord(
                    kind: "reply", kinds: ["tweet"], score: Decimal(string: "12.50")!, id: UUID(uuidString: uuid)!,
                    counts: ["a": 2], extra: Extra(x: [1, 2]), ratio: nil, flag: true))
        // The same values the key-path bindings give.
        let typed = try mapper.map(data, to: Post.self, context: "$Post")
        #expect(typed.value.score == decoded.value?.score && typed.value.counts == decoded.value?.counts)

        let lacking = try mapper.decode(NeedsMore.self, from: data, context: "$Post")
        #expect(lacking.value == nil && lacking.hasErrors)
        let issue = try #require(lacking.errors.first)
        #expect(issue.kind == .missingRequiredValue && issue.property == "Post.author")
        #expect(issue.message.contains(#"needs "author""#))

        let wrong = try mapper.decode([String: Int].self, from: data, context: "$Post")
        #expect(wrong.value == nil && wrong.errors.first?.kind == .conversionFailed)
        #expect {
            try mapper.decode(PostRecord.self, from: Data("[".utf8), context: "$Post")
        } throws: { ($0 as? MappingsError)?.kind == .invalidInput }
    }

    @Test("an Encodable value goes the reverse way through the context, and decodes back the same")
    func encodable() throws {
        let catalog = try Catalog.load(
            ["p.mappings"], from: .memory(["p.mappings": Self.postContexts]), definitions: Self.registered(Post.self))
        let mapper = Mapper(catalog: catalog)
        let record = PostRecord(
            kind: "reply", kinds: ["tweet", "reply"], score: Decimal(string: "12345678901234567890.123")!,
            id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, counts: ["a": 2],
            extra: Extra(x: [1, 2]), ratio: 0.5, flag: false)
        let payload = try mapper.encode(record, context: "$Post")
        #expect(payload.errors.isEmpty)
        guard case .object(let json) = try JSONValue(parsing: payload.value.jsonText) else {
            Issue.record("the payload is not an object")
            return
        }
        #expect(json["type"] == "reply" && json["types"] == ["tweet", "reply"])
        #expect(json["score"]?.jsonText == "12345678901234567890.123")
        #expect(json["uuid"] == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        // Typed instances go back as an array of payloads too.
        let posts = try mapper.map(Data(payload.value.jsonText.utf8), to: Post.self, context: "$Post")
        let context = try mapper.typedContext(Post.self, "$Post")
        let array = mapper.payloads(from: [posts.value, posts.value], using: context)
        #expect(array.errors.isEmpty)
        #expect(array.value.jsonText == "[" + payload.value.jsonText + "," + payload.value.jsonText + "]")
        // Mapped again, it is the same record.
        let back = try mapper.decode(PostRecord.self, from: Data(payload.value.jsonText.utf8), context: "$Post")
        #expect(back.issues.isEmpty && back.value == record)
    }

    @Test("every supported Swift type, and an enum without the raw value is an issue naming the payload path")
    func types() throws {
        let catalog = try Catalog.load(
            ["p.mappings"], from: .memory(["p.mappings": Self.postContexts]), definitions: Self.registered(Post.self))
        #expect(
            catalog.models["Post"]?.properties.map(\.type.description) == [
                "String", "[String]", "Decimal", "UUID", "[String: Int]", "JSON", "Double?", "Bool",
            ])
        let mapper = Mapper(catalog: catalog)
        let good = try mapper.object(
            Post.self,
            from: [
                "type": "reply", "types": ["tweet", "reply"], "score": "12.50",
                "uuid": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                "counts": ["a": 1, "b": "2"], "extra": ["x": [1]], "ratio": 0.5,
            ], context: "$Post")
        #expect(good.issues.isEmpty)
        #expect(good.value.kind == .reply)
        #expect(good.value.kinds == [.tweet, .reply])
        #expect(good.value.score == Decimal(string: "12.50"))
        #expect(good.value.id.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(good.value.counts == ["a": 1, "b": 2])
        #expect(good.value.extra == ["x": [1]])
        #expect(good.value.ratio == 0.5)
        #expect(good.value.flag)

        let bad = try mapper.object(
            Post.self, from: ["type": "retweet", "types": ["tweet", "quote"], "score": 1, "uuid": "nope"],
            context: "$Post")
        let lines = bad.issues.map(\.description)
        #expect(
            lines.contains {
                $0.hasPrefix("$.type: \"retweet\" is not a raw value of") && $0.hasSuffix("(p.mappings:1)")
            })
        #expect(lines.contains { $0.hasPrefix("$.types[1]: \"quote\" is not a raw value of") })
        #expect(bad.issues.contains { $0.path == "$.uuid" && $0.kind == .conversionFailed })
        #expect(bad.issues.first { $0.path == "$.type" }?.property == "Post.kind")
        #expect(bad.value.kind == .tweet)  // left as it was made
        #expect(bad.value.kinds == [.tweet])
    }
}
