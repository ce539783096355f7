import Mappings
import MappingsTestSupport
import Testing

@Suite("@inherits")
struct InheritanceTests {
    private func sources(_ catalog: Catalog, _ identifier: String) -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: catalog.context(identifier)!.rules.map { ($0.target.description, $0.source.text) })
    }

    @Test("the inheriting object wins, then the first-listed parent; parents' entries come first")
    func precedence() throws {
        let catalog = try load(
            """
            {
                "$A": { "x": "a.x", "y": "a.y", "only_a": "a" },
                "$B": { "x": "b.x", "y": "b.y", "z": "b.z" },
                "$C": { "@inherits": ["$A", "$B"], "x": "c.x", "own": "c" }
            }
            """)
        let rules = catalog.context("$C")!.rules
        #expect(rules.map(\.target.description) == ["x", "y", "only_a", "z", "own"])
        #expect(sources(catalog, "$C") == ["x": "c.x", "y": "a.y", "only_a": "a", "z": "b.z", "own": "c"])
    }

    @Test("merging is deep: a long-form entry keeps the options it does not override")
    func deepMerge() throws {
        let catalog = try load(
            """
            {
                \(twitterModels),
                "$Base": { "@class": "UserModel", "name": { "@keyPath": "name", "@optional": true, "@defaultValue": "anon" } },
                "$Child": { "@inherits": "$Base", "name": { "@keyPath": "full_name" } }
            }
            """)
        let rule = catalog.context("$Child")!.rules[0]
        #expect(catalog.context("$Child")?.model == "UserModel")
        #expect(rule.source.text == "full_name")
        #expect(rule.isOptional)
        #expect(rule.defaultValue == .string("anon"))
    }

    @Test("arrays and type conflicts: the inheriting side is kept whole")
    func arraysAndConflicts() throws {
        let catalog = try load(
            """
            {
                "$Base": { "a": { "@keyPath": "x", "@transformClass": "T", "@transformSelector": "f",
                                  "@transformUserData": [1, 2, 3] }, "b": { "@keyPath": "long" } },
                "$Child": { "@inherits": "$Base", "a": { "@transformUserData": [9] }, "b": "short" }
            }
            """)
        let rules = catalog.context("$Child")!.rules
        #expect(rules[0].transformer?.userData == .array([.integer(9)]))
        #expect(rules[1].source.text == "short")
    }

    @Test("a dotted path inherits part of a definition, at any depth")
    func dottedPath() throws {
        let catalog = try load(
            """
            {
                \(twitterModels),
                "$Templates": { "optionalName": { "@keyPath": "name", "@optional": true } },
                "$User": { "@class": "UserModel", "name": { "@inherits": "$Templates.optionalName" } }
            }
            """)
        let rule = catalog.context("$User")!.rules[0]
        #expect(rule.source.text == "name")
        #expect(rule.isOptional)
        #expect(rule.provenance.inheritedVia.map(\.parent) == ["$Templates.optionalName"])
    }

    @Test("provenance records the inheritance and import chain of a rule")
    func provenance() throws {
        let catalog = try load([
            "main.mappings": "{\n  \"@import\": \"base\",\n  \"$Child\": { \"@inherits\": \"$Base\" }\n}",
            "base.mappings": "{\n  \"$Base\": {\n    \"x\": \"y\"\n  }\n}",
        ])
        let rule = catalog.context("$Child")!.rules[0]
        #expect(
            rule.provenance.description
                == "base.mappings:3, inherited via \"$Base\" at main.mappings:3, imported at main.mappings:2")
    }

    @Test("a cycle is an error, never a hang")
    func cycle() {
        #expect(
            failure(
                """
                {
                  "$A": { "@inherits": "$B" },
                  "$B": { "@inherits": "$C" },
                  "$C": { "@inherits": "$A" }
                }
                """) == """
                    error: inheritance cycle: "$A" → "$B" → "$C" → "$A"
                     --> main.mappings:4:24
                      |
                    4 |   "$C": { "@inherits": "$A" }
                      |                        ^^^^
                      = help: break the cycle: one of these must not inherit from the other
                    """)
    }

    @Test("inheriting from itself is a cycle")
    func selfInheritance() {
        #expect(
            failure(#"{ "$A": { "x": { "@inherits": "$A" } } }"#).contains(
                "error: inheritance cycle: \"$A\" → \"$A\""))
    }

    @Test("a missing parent is an error with a suggestion")
    func missingParent() {
        #expect(
            failure("{\n  \"$Base\": {},\n  \"$Child\": { \"@inherits\": [\"$Bse\"] }\n}") == """
                error: the parent "$Bse" names no context
                 --> main.mappings:3:29
                  |
                3 |   "$Child": { "@inherits": ["$Bse"] }
                  |                             ^^^^^^
                  = help: did you mean "$Base"?
                """)
    }

    @Test(
        "malformed references are errors",
        arguments: [
            (
                #"{ "$A": { "@inherits": 1 } }"#,
                "\"@inherits\" takes a context identifier or an array of them, not a number"
            ),
            (#"{ "$A": { "@inherits": [""] } }"#, "a parent is named by a non-empty string, not an empty string"),
            (
                #"{ "$B": { "k": "v" }, "$A": { "@inherits": "$B.k" } }"#,
                "\"$B.k\" is a string; only an object can be inherited from"
            ),
            (#"{ "$B": { "k": {} }, "$A": { "@inherits": "$B.q" } }"#, "\"$B\" has no member \"q\""),
        ])
    func malformed(text: String, message: String) {
        #expect(failure(text).hasPrefix("error: \(message)\n"))
    }
}
