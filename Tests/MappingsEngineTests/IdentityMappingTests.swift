import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON

@Suite("@identity: collections upserted and synced, through the Swift API")
struct IdentityMappingTests {
    private static let contexts = #"""
        {
            "@models": {
                "Feed": { "tweets": "[Tweet]", "synced": "[Tweet]", "front": "[Tweet]", "issues": "[Issue]",
                          "byName": "[String: Tweet]", "codes": "[Code]" },
                "Tweet": { "id": "Int", "text": "String", "likes": "Int?" },
                "Issue": { "owner": "String", "number": "Int", "title": "String" },
                "Code": { "code": "String", "label": "String?" }
            },
            "$Feed": {
                "@class": "Feed",
                "tweets": { "@keyPath": "tweets", "@optional": true, "@object": { "@mappings": "$Tweet" },
                            "@identity": "id" },
                "synced": { "@keyPath": "synced", "@optional": true, "@object": { "@mappings": "$Tweet" },
                            "@identity": "id", "@clearContent": true },
                "front": { "@keyPath": "front", "@optional": true, "@object": { "@mappings": "$Tweet" },
                           "@identity": "id", "@insertContentAtBegin": true },
                "issues": { "@keyPath": "issues", "@optional": true, "@object": { "@mappings": "$Issue" },
                            "@identity": ["owner", "number"] },
                "byName": { "@keyPath": "byName", "@optional": true, "@object": { "@mappings": "$Tweet" },
                            "@identity": "@key", "@clearContent": true },
                "codes": { "@keyPath": "codes", "@optional": true, "@object": { "@class": "Code" },
                           "@identity": "code" }
            },
            "$Tweet": { "@class": "Tweet", "id": "id", "text": { "@keyPath": "text", "@optional": true },
                        "likes": { "@keyPath": "likes", "@optional": true } },
            "$Issue": { "@class": "Issue", "owner": "owner", "number": "number", "title": "title" }
        }
        """#

    private let mapper: Mapper

    init() throws {
        mapper = Mapper(catalog: try load(Self.contexts))
    }

    /// Maps `payload` into the Feed that `existing` (a JSON object) describes.
    private func populate(_ existing: String, _ payload: String) throws -> MappingResult {
        try mapper.populate(payload, into: existing, context: "$Feed")
    }

    private func property(_ result: MappingResult, _ name: String) -> String {
        result.propertyText(name)
    }

    @Test("a matched element is updated in place (its other properties kept), a new one appended, the rest kept")
    func upsert() throws {
        let result = try populate(
            #"{"tweets": [{"id": 1, "text": "one", "likes": 5}, {"id": 2, "text": "two", "likes": 9}]}"#,
            #"{"tweets": [{"id": 2, "likes": 10}, {"id": 3, "text": "three"}]}"#)
        #expect(
            property(result, "tweets")
                == #"[{"id":1,"text":"one","likes":5},{"id":2,"text":"two","likes":10},{"id":3,"text":"three","likes":null}]"#
        )
        #expect(
            result.issues.map(\.description) == [
                "$.tweets: info: by id: 1 updated (2), 1 added (3) (main.mappings:12)"
            ])
        #expect(result.issues.first?.kind == .collectionChanges && result.issues.first?.severity == .info)
        #expect(!result.hasErrors)
    }

    @Test("with @clearContent the collection is synced: elements the payload does not mention are removed")
    func sync() throws {
        let result = try populate(
            #"{"synced": [{"id": 1, "text": "one"}, {"id": 2, "text": "two"}, {"id": 3, "text": "three"}]}"#,
            #"{"synced": [{"id": 3, "likes": 1}, {"id": 1, "text": "ONE"}, {"id": 4, "text": "four"}]}"#)
        #expect(
            property(result, "synced")
                == #"[{"id":1,"text":"ONE","likes":null},{"id":3,"text":"three","likes":1},{"id":4,"text":"four","likes":null}]"#
        )
        #expect(
            result.issues.map(\.message) == ["by id: 2 updated (3, 1), 1 added (4), 1 removed (2)"])
    }

    @Test("duplicates in one payload merge in order, the later winning, with a warning naming both indexes")
    func duplicates() throws {
        let result = try mapper.object(
            from: try JSONParser.parse(
                #"{"tweets": [{"id": 7, "text": "a", "likes": 1}, {"id": 8, "text": "b"}, {"id": 7, "text": "c"}]}"#),
            context: "$Feed")
        #expect(
            property(result, "tweets")
                == #"[{"id":7,"text":"c","likes":1},{"id":8,"text":"b","likes":null}]"#)
        #expect(
            result.issues.map(\.description) == [
                "$.tweets[2]: warning: the elements [0] and [2] have the same id 7: merged in order, [2] wins (main.mappings:12)"
            ])
        #expect(result.issues.first?.kind == .duplicateIdentity)
    }

    @Test("identities compare the mapped values: \"2\" for an Int property matches 2, and strings by code points")
    func comparedAsMapped() throws {
        let result = try populate(
            #"{"tweets": [{"id": 2, "text": "two"}], "codes": [{"code": "é", "label": "composed"}]}"#,
            #"{"tweets": [{"id": "2", "likes": 3}], "codes": [{"code": "e\u0301", "label": "decomposed"}]}"#)
        #expect(property(result, "tweets") == #"[{"id":2,"text":"two","likes":3}]"#)
        // "é" and "e" + U+0301 are canonically equivalent, but different code points: two elements.
        #expect(property(result, "codes").components(separatedBy: "code").count == 3)
        #expect(
            result.issues.map(\.message) == [
                "by id: 1 updated (2)", #"by code: 1 added ("é")"#,
            ])
    }

    @Test("a compound identity matches on every property")
    func compound() throws {
        let result = try populate(
            #"{"issues": [{"owner": "a", "number": 1, "title": "x"}, {"owner": "b", "number": 1, "title": "y"}]}"#,
            #"{"issues": [{"owner": "b", "number": 1, "title": "Y"}, {"owner": "a", "number": 2, "title": "z"}]}"#)
        #expect(
            property(result, "issues")
                == #"[{"owner":"a","number":1,"title":"x"},{"owner":"b","number":1,"title":"Y"},{"owner":"a","number":2,"title":"z"}]"#
        )
        #expect(result.issues.map(\.message) == [#"by (owner, number): 1 updated (("b",1)), 1 added (("a",2))"#])
    }

    @Test("an element without an identity is added, with a warning; its own issues follow")
    func missingIdentity() throws {
        let result = try populate(
            #"{"tweets": [{"id": 1, "text": "one"}]}"#, #"{"tweets": [{"text": "anonymous"}, {"id": 1}]}"#)
        #expect(
            property(result, "tweets")
                == #"[{"id":1,"text":"one","likes":null},{"id":null,"text":"anonymous","likes":null}]"#)
        #expect(
            result.issues.map { "\($0.severity) \($0.kind) \($0.path)" } == [
                "warning missing identity $.tweets[0]", "error missing required value $.tweets[0].id",
                "info collection changes $.tweets",
            ])
        #expect(result.issues.last?.message == "by id: 1 updated (1), 1 added (no id)")
    }

    @Test("@insertContentAtBegin puts the new elements first, in payload order; matched ones stay where they are")
    func front() throws {
        let result = try populate(
            #"{"front": [{"id": 1, "text": "one"}]}"#,
            #"{"front": [{"id": 2, "text": "two"}, {"id": 1, "likes": 4}, {"id": 3, "text": "three"}]}"#)
        #expect(
            property(result, "front").replacingOccurrences(of: #","likes":null"#, with: "")
                == #"[{"id":2,"text":"two"},{"id":3,"text":"three"},{"id":1,"text":"one","likes":4}]"#)
    }

    @Test("a [String: Model] dictionary is keyed by its keys: updated in place, synced with @clearContent")
    func dictionary() throws {
        let result = try populate(
            #"{"byName": {"a": {"id": 1, "text": "A", "likes": 1}, "b": {"id": 2, "text": "B"}}}"#,
            #"{"byName": {"a": {"id": 1, "likes": 2}, "c": {"id": 3, "text": "C"}}}"#)
        #expect(
            property(result, "byName")
                == #"{"a":{"id":1,"text":"A","likes":2},"c":{"id":3,"text":"C","likes":null}}"#)
        #expect(result.issues.map(\.message) == [#"by key: 1 updated ("a"), 1 added ("c"), 1 removed ("b")"#])
    }

    @Test("without an existing collection nothing is reported but duplicates; explain --into says what changed")
    func explain() throws {
        let context = try mapper.context("$Feed")
        let fresh = mapper.object(from: try JSONParser.parse(#"{"synced": [{"id": 1}]}"#), using: context)
        #expect(fresh.issues.isEmpty)
        let old = mapper.existingObject(
            from: try JSONParser.parse(#"{"synced": [{"id": 1}, {"id": 2}]}"#), using: context)
        let (result, explanations) = mapper.explain(
            try JSONParser.parse(#"{"synced": [{"id": 1, "text": "x"}]}"#), into: old.value, using: context)
        #expect(result.issues.map(\.message) == ["by id: 1 updated (1), 1 removed (2)"])
        #expect(
            explanations.first { $0.description.contains(" by id: ") }?.description
                == "Feed.synced <- $.synced by id: 1 updated (1), 1 removed (2)  [main.mappings:14]")
    }

    @Test("10,000 elements upserted into 10,000 take linear time (an index, not nested loops)")
    func linear() throws {
        func payload(_ range: Range<Int>, text: String) -> JSONValue {
            .object(
                JSONObject([
                    (
                        "synced",
                        .array(
                            range.map { .object(JSONObject([("id", .integer(Int64($0))), ("text", .string(text))])) })
                    )
                ]))
        }
        let context = try mapper.context("$Feed")
        func seconds(_ count: Int) -> Double {
            let existing = mapper.object(from: payload(0..<count, text: "old"), using: context).value
            let start = ContinuousClock.now
            // Half of the payload matches, half is new; the other half of the old ones is removed.
            let result = mapper.map(
                payload(count / 2..<(count + count / 2), text: "new"), into: existing, using: context)
            let elapsed = ContinuousClock.now - start
            #expect(result.issues.count == 1)
            if case .object(let feed) = result.value, case .array(let tweets)? = feed["synced"] {
                #expect(tweets.count == count)
            } else {
                Issue.record("no synced collection")
            }
            return Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds)
        }
        _ = seconds(1_000)  // warm up
        // The best of three, so that other tests running beside this one weigh less.
        let small = (0..<3).map { _ in seconds(10_000) }.min() ?? 0
        let large = (0..<3).map { _ in seconds(40_000) }.min() ?? 0
        // Linear: about 4 times as long; nested loops would take 16 times.
        #expect(large / small < 10, "10k: \(small)s, 40k: \(large)s")
    }
}

@Suite("@identity for typed Swift collections")
struct TypedIdentityTests {
    struct Post: MappedModel, Identifiable {
        var id = 0
        var text = ""
        var likes = 0

        static let mapping = TypedModel<Post>("Post", make: { Post() }) { post in
            post.bind("id", \.id)
            post.bind("text", \.text)
            post.bind("likes", \.likes)
        }
    }

    struct Wall: MappedModel {
        var posts: [Post] = []
        static let mapping = TypedModel<Wall>("Wall", make: { Wall() }) { wall in
            wall.bind("posts", \.posts)
        }
    }

    private func catalog(_ identity: ElementIdentity) throws -> Catalog {
        var definitions = Definitions()
        definitions.register(Wall.self)
        definitions.context("$Post", class: "Post") { post in
            post.map("id", from: "id")
            post.map("text", from: "text", optional: true)
            post.map("likes", from: "likes", optional: true)
        }
        definitions.context("$Wall", class: "Wall") { wall in
            wall.map("posts", from: "posts", object: .context("$Post"), clearContent: true, identity: identity)
        }
        return try Catalog.load([], from: .memory([:]), definitions: definitions)
    }

    @Test("Identifiable, a key path and a name give the same sync of a typed [Post]", arguments: [0, 1, 2])
    func typed(_ form: Int) throws {
        let identity: ElementIdentity = [
            .identifiable(Post.self), .keyPaths(\Post.id), .properties("id"),
        ][form]
        let mapper = Mapper(catalog: try catalog(identity))
        let context = try mapper.typedContext(Wall.self, "$Wall")
        var wall = Wall(posts: [Post(id: 1, text: "one", likes: 2), Post(id: 2, text: "two", likes: 0)])
        let issues = mapper.map(
            try JSONParser.parse(#"{"posts": [{"id": 1, "likes": 3}, {"id": 3, "text": "three"}]}"#), into: &wall,
            using: context)
        #expect(wall.posts.map(\.id) == [1, 3])
        #expect(wall.posts.map(\.text) == ["one", "three"])
        #expect(wall.posts.map(\.likes) == [3, 0])
        #expect(issues.map(\.message) == ["by id: 1 updated (1), 1 added (3), 1 removed (2)"])
    }

    @Test("a key path bound to no property is a load error at the entry, with the properties")
    func unbound() throws {
        do {
            _ = try catalog(.properties("idd"))
            Issue.record("the load succeeded")
        } catch let error as MappingsError {
            #expect(error.diagnostics.map(\.message) == [#""@identity" names "idd", but Post has no such property"#])
            #expect(error.diagnostics.first?.help == #"did you mean "id"?"#)
        }
    }
}
