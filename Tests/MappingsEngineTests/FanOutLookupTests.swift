import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsEngine
@testable import MappingsJSON

/// A key applied to an array fans out over its elements. An element's object without the key is
/// an absent value and is said so, as a key missing anywhere else is; an element that is neither
/// an object nor null cannot be read, as a key of a string cannot; keys after a fan-out read
/// each element at its position. The fast plan writes such records the general engine's way, or
/// leaves them to it.
@Suite("fan-outs: absent keys, elements that cannot be read, chained keys")
struct FanOutLookupTests {
    static let text = """
        { "@models": { "M": { "s": "[String]", "o": "[String?]", "c": "[String]", "first": "String" } },
          "$S": { "@class": "M", "s": "a.s" },
          "$O": { "@class": "M", "o": "a.s" },
          "$C": { "@class": "M", "c": "a.b.c" },
          "$First": { "@class": "M", "first": "a.s.@first" },
          "$Skip": { "@class": "M", "s": { "@keyPath": "a.s", "@onElementError": "skip" } } }
        """

    /// Maps `json` with `context` and gives the issues as `path|kind|property|message`.
    static func issues(_ json: String, context: String = "$S") throws -> [String] {
        let mapper = Mapper(catalog: try load(Self.text))
        let result = try mapper.object(fromJSON: Array(json.utf8), using: try mapper.context(context))
        return result.issues.map { "\($0.path)|\($0.kind)|\($0.property)|\($0.message)" }
    }

    @Test("a key absent from an element's object is a missing value at that element, not a null")
    func absentKey() throws {
        #expect(
            try Self.issues(#"{"a": [{"i": [1, 2]}]}"#)
                == ["$.a[0].s|missing required value|M.s[0]|missing required value for M.s[0]"])
        // A null the payload holds is still a null.
        #expect(
            try Self.issues(#"{"a": [{"s": "x"}, {"s": null}]}"#)
                == ["$.a[1].s|conversion failed|M.s[1]|expected String, found null"])
        // Skipped elements say the same.
        #expect(
            try Self.issues(#"{"a": [{"s": "x"}, {}]}"#, context: "$Skip")
                == [
                    "$.a[1].s|missing required value|M.s[1]|missing required value for M.s[1] (element skipped, @onElementError: skip)"
                ])
    }

    @Test("an element that is neither an object nor null cannot be read, even into optional elements")
    func unreadableElement() throws {
        for context in ["$S", "$O"] {
            let issues = try Self.issues(#"{"a": [{"s": "x"}, 5, null]}"#, context: context)
            let property = context == "$S" ? "M.s" : "M.o"
            #expect(issues == [#"$.a[1]|invalid source|\#(property)|cannot read "s" from number 5"#], "\(issues)")
        }
        // An array inside the fanned values is no object either: its members are not dropped.
        let nested = try Self.issues(#"{"a": [{"b": [{"c": "x"}]}]}"#, context: "$C")
        #expect(nested == [#"$.a[0].b|invalid source|M.c|cannot read "c" from array of 1"#], "\(nested)")
    }

    @Test("keys after a fan-out read each element at its position: one [*], named by the element")
    func chainedKeys() throws {
        #expect(
            try Self.issues(#"{"a": [{"b": {"c": "x"}}, {"b": {}}]}"#, context: "$C")
                == ["$.a[1].b.c|missing required value|M.c[1]|missing required value for M.c[1]"])
        // @first of a fan-out is the first element's value; an absent one is missing, not null.
        #expect(try Self.issues(#"{"a": [{"s": "x"}, {"s": "y"}]}"#, context: "$First").isEmpty)
        #expect(
            try Self.issues(#"{"a": [{}, {"s": "y"}]}"#, context: "$First")
                == ["$.a[0].s|missing required value|M.first|missing required value for M.first"])
        #expect(
            try Self.issues(#"{"a": [{"s": null}]}"#, context: "$First")
                == [
                    "$.a[0].s|missing required value|M.first|missing required value for M.first: the payload has null there"
                ])
    }

    @Test("the fast plan writes fan-outs the general engine's way, or leaves them to it")
    func planAgrees() throws {
        let catalog = try load(Self.text)
        let mapper = Mapper(catalog: catalog)
        var tally = FastPlanTests.Tally()
        for identifier in ["$S", "$O", "$C"] {
            let context = try mapper.context(identifier)
            let plan = try mapper.fastPlan(for: context).get()
            for record in [
                #"{"a": [{"s": "x"}, {"s": "y"}]}"#, #"{"a": [{"s": "x"}, {}]}"#, #"{"a": [{"s": "x"}, 5]}"#,
                #"{"a": [{"s": "x"}, null]}"#, #"{"a": [{"s": "x"}, [1]]}"#,
                #"{"a": [{"b": {"c": "x"}}, {"b": null}]}"#,
                #"{"a": [{"b": [{"c": "x"}]}]}"#, #"{"a": [{"b": "c"}]}"#, #"{"a": []}"#, #"{"a": {"s": "x"}}"#,
            ] {
                FastPlanTests.compare(Array(record.utf8), context, plan, mapper, &tally)
            }
        }
        #expect(tally.fast >= 6)
    }
}
