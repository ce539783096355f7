import MappingsJSON
import MappingsTestSupport
import Testing

@testable import MappingsCompiler

@Suite("compiling @identity, @onElementError, @onError and @null")
struct PolicyCompilationTests {
    private static let models = """
        "@models": {
            "Feed": { "tweets": "[Tweet]", "title": "String", "note": "String?", "byId": "[String: Tweet]" },
            "Tweet": { "id": "Int", "owner": "String", "reply": "Tweet?" }
        }
        """

    private func context(_ entries: String) -> String {
        "{ \(Self.models), \"$Feed\": { \"@class\": \"Feed\", \(entries) } }"
    }

    @Test("each policy compiles into the rule; the defaults are today's behaviour")
    func compiled() throws {
        let catalog = try load(
            context(
                """
                "tweets": { "@keyPath": "t", "@object": { "@class": "Tweet" }, "@identity": ["owner", "id"],
                            "@onElementError": "skip", "@clearContent": true },
                "byId": { "@keyPath": "b", "@object": { "@class": "Tweet" }, "@identity": "@key" },
                "title": { "@keyPath": "x", "@defaultValue": "-", "@onError": "default" },
                "note": { "@keyPath": "n", "@null": "clear" }
                """))
        let rules = try #require(catalog.context("$Feed")?.rules)
        #expect(rules[0].policies.identity?.properties == ["owner", "id"])
        #expect(rules[0].policies.identity?.models.map(\.model) == ["Tweet"])
        #expect(rules[0].policies.identity?.models.first?.slots == [1, 0])
        #expect(rules[0].policies.identity?.provenance.location.line == 4)
        #expect(rules[0].policies.onElementError == .skip)
        #expect(rules[1].policies.identity?.properties == [])
        #expect(rules[2].policies.onError == .default && rules[2].policies.identity == nil)
        #expect(rules[3].policies.null == .clear && rules[3].policies.onElementError == .keep)
    }

    @Test("an @identity naming a property the element model lacks is an error at the name, with a did you mean")
    func unknownProperty() {
        #expect(
            failure(context(#""tweets": { "@keyPath": "t", "@object": { "@class": "Tweet" }, "@identity": "idd" }"#))
                == """
                error: "@identity" names "idd", but Tweet has no such property
                 --> main.mappings:4:109
                  |
                4 | }, "$Feed": { "@class": "Feed", "tweets": { "@keyPath": "t", "@object": { "@class": "Tweet" }, "@identity": "idd" } } }
                  |                                                                                                             ^^^^^
                  = help: did you mean "id"?
                """)
    }

    @Test(
        "misplaced and mistyped policies are errors with what to write",
        arguments: [
            (
                #""title": { "@keyPath": "x", "@identity": "id" }"#,
                #"error: "@identity" matches the elements of a collection, but "title" is String"#
            ),
            (
                #""tweets": { "@keyPath": "t", "@identity": "id" }"#,
                #"error: "@identity" names properties of the elements' model, but "tweets" builds none"#
            ),
            (
                #""tweets": { "@keyPath": "t", "@object": { "@class": "Tweet" }, "@identity": ["id", "reply"] }"#,
                #"error: "@identity" compares values, but Tweet.reply is Tweet?"#
            ),
            (
                #""tweets": { "@keyPath": "t", "@object": { "@class": "Tweet" }, "@identity": ["id", "id"] }"#,
                #"error: "@identity" names "id" twice"#
            ),
            (
                #""byId": { "@keyPath": "b", "@object": { "@class": "Tweet" }, "@identity": "id" }"#,
                #"error: the elements of the dictionary "byId" are identified by their key"#
            ),
            (
                #""tweets": { "@keyPath": "t", "@onElementError": "skipp" }"#,
                #"error: "@onElementError" is "keep", "skip" or "fail", not "skipp""#
            ),
            (
                #""title": { "@keyPath": "x", "@onElementError": "skip" }"#,
                #"error: "@onElementError" applies to collections, but "title" is String"#
            ),
            (
                #""title": { "@keyPath": "x", "@onError": "default" }"#,
                #"error: "@onError": "default" uses the entry's default, but "title" has none"#
            ),
            (
                #""title": { "@keyPath": "x", "@null": "clear" }"#,
                #"error: "@null": "clear" sets "title" to nil, but it is String, not optional"#
            ),
            (#""note": { "@keyPath": "x", "@null": true }"#, #"error: "@null" is "missing" or "clear", not a boolean"#),
            (#""note": { "@keyPath": "x", "@identiy": "id" }"#, #"help: did you mean "@identity"?"#),
        ])
    func diagnostics(_ entry: String, _ expected: String) {
        let rendered = failure(context(entry))
        #expect(rendered.contains(expected), "\(rendered)")
    }
}
