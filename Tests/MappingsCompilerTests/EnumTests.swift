import Mappings
import MappingsTestSupport
import Testing

@Suite("enums and value maps: loading")
struct EnumTests {
    @Test("an array of strings in @models declares an enum, usable as T, T?, [T] and [String: T], before or after")
    func types() throws {
        let catalog = try load(
            """
            { "@models": {
                "Account": { "s": "Status", "o": "Status?", "a": "[Status]", "d": "[String: Status]", "m": "[Mood?]" },
                "Status": ["active", "suspended", "deleted"],
                "Mood": ["up", "down"]
            },
              "$Json": { "state": { "@keyPath": "s", "@type": "Status?" } } }
            """)
        let account = try #require(catalog.models["Account"])
        #expect(
            account.properties.map(\.type.description) == [
                "Status", "Status?", "[Status]", "[String: Status]", "[Mood?]",
            ])
        let status = Enumeration(name: "Status", values: ["active", "suspended", "deleted"])
        #expect(account.properties[0].type == .enumeration(status))
        #expect(account.properties[3].type == .dictionary(.enumeration(status)))
        #expect(catalog.models["Status"] == nil)
        #expect(catalog.context("$Json")?.rules[0].type == .optional(.enumeration(status)))
    }

    @Test("a malformed enum is an error: a non-string or repeated value, no value, a built-in name")
    func malformed() {
        #expect(
            failure(#"{ "@models": { "Status": ["active", "suspended", "active", 3], "Empty": [], "URL": ["a"] } }"#)
                == """
                error: the enum "Status" lists "active" twice
                 --> main.mappings:1:50
                  |
                1 | { "@models": { "Status": ["active", "suspended", "active", 3], "Empty": [], "URL": ["a"] } }
                  |                                                  ^^^^^^^^
                  = note: first listed here
                 --> main.mappings:1:27
                  |
                1 | { "@models": { "Status": ["active", "suspended", "active", 3], "Empty": [], "URL": ["a"] } }
                  |                           ^^^^^^^^
                  = help: remove one of them

                error: the values of the enum "Status" are strings, not a number
                 --> main.mappings:1:60
                  |
                1 | { "@models": { "Status": ["active", "suspended", "active", 3], "Empty": [], "URL": ["a"] } }
                  |                                                            ^
                  = help: write it as a string: "3"

                error: the enum "Empty" has no values
                 --> main.mappings:1:73
                  |
                1 | { "@models": { "Status": ["active", "suspended", "active", 3], "Empty": [], "URL": ["a"] } }
                  |                                                                         ^
                  = help: list its values: "Empty": ["active", "deleted"]

                error: "URL" is a built-in type and cannot be declared as an enum
                 --> main.mappings:1:77
                  |
                1 | { "@models": { "Status": ["active", "suspended", "active", 3], "Empty": [], "URL": ["a"] } }
                  |                                                                             ^^^^^
                  = help: name the enum otherwise, such as "URLKind"
                """)
    }

    struct Status: MappedModel {
        var x = 0
        static let mapping = TypedModel<Status>("Status", make: { Status() }) { $0.bind("x", \.x) }
    }

    @Test("an enum named like a model a Swift type binds is an error")
    func clashWithTypedModel() {
        var definitions = Definitions()
        definitions.register(Status.self)
        do {
            _ = try Catalog.load(
                ["main.mappings"], from: .memory(["main.mappings": #"{ "@models": { "Status": ["a"] } }"#]),
                definitions: definitions)
            Issue.record("the load succeeded")
        } catch {
            #expect(
                error.description.hasPrefix(
                    """
                    error: "Status" is declared as an enum here and as a model by a Swift type
                     --> main.mappings:1:16
                    """))
        }
    }

    @Test("a mapped value the enum does not allow is an error pointing at it, with a suggestion")
    func mappedValueNotAllowed() {
        #expect(
            failure(
                """
                { "@models": { "Status": ["active", "deleted"], "A": { "s": "Status" } },
                  "$A": { "@class": "A", "s": { "@keyPath": "s", "@valueMap": { "X": "actve", "Y": "deleted" } } } }
                """) == """
                    error: "@valueMap" maps "X" to "actve", which is not a Status
                     --> main.mappings:2:70
                      |
                    2 |   "$A": { "@class": "A", "s": { "@keyPath": "s", "@valueMap": { "X": "actve", "Y": "deleted" } } } }
                      |                                                                      ^^^^^^^
                      = help: did you mean "active"?
                    """)
        #expect(
            failure(
                #"{ "@models": { "A": { "n": "Int" } }, "$A": { "@class": "A", "n": { "@keyPath": "n", "@valueMap": { "x": "one" } } } }"#
            ).hasPrefix(
                """
                error: "@valueMap" maps "x" to a value that cannot become Int: expected Int, found string "one"
                """))
    }

    @Test("a map that is not one-to-one needs @reverseValue to say which key serialize writes")
    func notOneToOne() throws {
        #expect(
            failure(
                """
                { "@models": { "Status": ["active", "deleted"], "A": { "s": "Status" } },
                  "$A": { "@class": "A", "s": { "@keyPath": "s", "@valueMap": { "A": "active", "B": "active" } } } }
                """) == """
                    error: "@valueMap" is not one-to-one: "A" and "B" map to "active", and serialize cannot choose
                     --> main.mappings:2:80
                      |
                    2 |   "$A": { "@class": "A", "s": { "@keyPath": "s", "@valueMap": { "A": "active", "B": "active" } } } }
                      |                                                                                ^^^
                      = note: "A" maps to it here
                     --> main.mappings:2:65
                      |
                    2 |   "$A": { "@class": "A", "s": { "@keyPath": "s", "@valueMap": { "A": "active", "B": "active" } } } }
                      |                                                                 ^^^
                      = help: say which one is written back: "@reverseValue": { "active": "A" }; or, if the entry is never serialized, "@reverse": false
                    """)
        _ = try load(
            """
            { "@models": { "Status": ["active", "deleted"], "A": { "s": "Status" } },
              "$A": { "@class": "A", "s": { "@keyPath": "s", "@valueMap": { "A": "active", "B": "active" },
                                            "@reverseValue": { "active": "B" } } } }
            """)
    }

    @Test("@valueMap and @reverseValue of the wrong shape, or naming what the map does not say, are errors")
    func malformedMaps() {
        #expect(
            failure(
                """
                { "@models": { "A": { "n": "Int" } },
                  "$A": { "@class": "A", "n": { "@keyPath": "n", "@valueMap": ["x"], "@reverseValue": { "1": "x" } } } }
                """) == """
                    error: "@valueMap" takes an object of source values to values, not an array
                     --> main.mappings:2:63
                      |
                    2 |   "$A": { "@class": "A", "n": { "@keyPath": "n", "@valueMap": ["x"], "@reverseValue": { "1": "x" } } } }
                      |                                                               ^
                      = help: for example { "A": "active", "S": "suspended" }
                    """)
        #expect(
            failure(
                """
                { "@models": { "A": { "n": "Int" } },
                  "$A": { "@class": "A", "n": { "@keyPath": "n", "@valueMap": { "x": 1, "y": 1 }, "@reverseValue": { "1": "z", "2": "x" } } } }
                """) == """
                    error: "@reverseValue" writes "1" back as "z", but "@valueMap" maps only "x", "y" to it
                     --> main.mappings:2:107
                      |
                    2 |   "$A": { "@class": "A", "n": { "@keyPath": "n", "@valueMap": { "x": 1, "y": 1 }, "@reverseValue": { "1": "z", "2": "x" } } } }
                      |                                                                                                           ^^^
                      = help: write one of "x", "y"

                    error: "@reverseValue" names "2", which "@valueMap" maps nothing to
                     --> main.mappings:2:112
                      |
                    2 |   "$A": { "@class": "A", "n": { "@keyPath": "n", "@valueMap": { "x": 1, "y": 1 }, "@reverseValue": { "1": "z", "2": "x" } } } }
                      |                                                                                                                ^^^
                      = help: the mapped values are "1"
                    """)
        #expect(
            failure(
                #"{ "@models": { "A": { "n": "Int" } }, "$A": { "@class": "A", "n": { "@keyPath": "n", "@reverseValue": { "1": "x" }, "@valuemap": {} } } }"#
            ) == """
                error: "@reverseValue" chooses what "@valueMap" writes back, but this entry has no map
                 --> main.mappings:1:86
                  |
                1 | { "@models": { "A": { "n": "Int" } }, "$A": { "@class": "A", "n": { "@keyPath": "n", "@reverseValue": { "1": "x" }, "@valuemap": {} } } }
                  |                                                                                      ^^^^^^^^^^^^^^^
                  = help: add "@valueMap", or remove "@reverseValue"

                error: unknown keyword "@valuemap" in an entry
                 --> main.mappings:1:117
                  |
                1 | { "@models": { "A": { "n": "Int" } }, "$A": { "@class": "A", "n": { "@keyPath": "n", "@reverseValue": { "1": "x" }, "@valuemap": {} } } }
                  |                                                                                                                     ^^^^^^^^^^^
                  = help: did you mean "@valueMap"?
                """)
        #expect(
            failure(
                #"{ "$J": { "x": { "@keyPath": "x", "@valueMap": { "a": [1] } } } }"#
            ).hasPrefix(#"error: "@valueMap" maps "a" to an array: values are strings, numbers or booleans"#))
        #expect(
            failure(
                #"{ "$J": { "x": { "@keyPath": "x", "@valueMap": { "a": "b" }, "@object": { "@mappings": { "y": "y" } } } } }"#
            ).hasPrefix(#"error: "@valueMap" translates values, but "x" maps objects with "@object""#))
    }

    @Test("ContextBuilder writes @valueMap and @reverseValue, checked like a file's")
    func builder() throws {
        var definitions = Definitions()
        definitions.model("Account", ["status": "String"])
        definitions.context("$Account", class: "Account") { account in
            account.map("status", from: "s", valueMap: ["A": "active", "B": "active"], reverseValue: ["active": "B"])
        }
        _ = try Catalog.load([], from: .memory([:]), definitions: definitions)
        var wrong = Definitions()
        wrong.model("Account", ["status": "String"])
        wrong.context("$Account", class: "Account") { account in
            account.map("status", from: "s", valueMap: ["A": "active", "B": "active"])
        }
        do {
            _ = try Catalog.load([], from: .memory([:]), definitions: wrong)
            Issue.record("the load succeeded")
        } catch {
            #expect(
                error.diagnostics.map(\.message) == [
                    #""@valueMap" is not one-to-one: "A" and "B" map to "active", and serialize cannot choose"#
                ])
        }
    }
}
