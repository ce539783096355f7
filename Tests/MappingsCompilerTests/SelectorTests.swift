import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

@Suite("selectors and traits")
struct SelectorTests {
    @Test(
        "versions compare component by component, other values as strings",
        arguments: [
            ("2.10", "2.9", 1), ("2.9", "2.10", -1), ("7", "7.0.0", 0), ("10.3.1", "10.3", 1), ("1.2", "1.2", 0),
            ("beta", "alpha", 1), ("2", "x", -1),
        ])
    func comparison(a: String, b: String, order: Int) {
        #expect(Selector.compare(a, b) == order)
    }

    @Test(
        "selector keys parse into conditions",
        arguments: [
            ("@when debug", Selector.Condition.isSet("debug")),
            ("@when apiVersion >= 2.10", .compare("apiVersion", .greaterOrEqual, "2.10")),
            ("@when apiVersion>=2", .compare("apiVersion", .greaterOrEqual, "2")),
            ("@when device == \"iphone\"", .compare("device", .equal, "iphone")),
            ("@when region = eu", .compare("region", .equal, "eu")),
            ("@when os.name != linux", .compare("os.name", .notEqual, "linux")),
            ("@debug", .compare("build", .equal, "debug")),
            ("@release", .compare("build", .notEqual, "debug")),
            ("@ios >= 7.0", .compare("ios", .greaterOrEqual, "7.0")),
            ("@ios>=7", .compare("ios", .greaterOrEqual, "7")),
            ("@iphone", .compare("device", .equal, "iphone")),
            ("@iPad", .compare("device", .equal, "ipad")),
        ])
    func parsing(key: String, condition: Selector.Condition) throws {
        #expect(try Selector(key: key).condition == condition)
    }

    @Test(
        "a selector holds according to the traits",
        arguments: [
            ("@when apiVersion >= 2", ["apiVersion": "2.1"], true),
            ("@when apiVersion >= 2", ["apiVersion": "1.9"], false),
            ("@when apiVersion > 2.9", ["apiVersion": "2.10"], true),
            ("@when apiVersion >= 2", [:], false),
            ("@when apiVersion != 2", [:], true),
            ("@when beta", ["beta": "true"], true),
            ("@when beta", ["beta": "no"], false),
            ("@when beta", [:], false),
            ("@debug", ["build": "debug"], true),
            ("@release", [:], true),
            ("@release", ["build": "debug"], false),
            ("@ios < 8", ["ios": "7.1"], true),
            ("@ios < 8", [:], false),
            ("@ipad", ["device": "ipad"], true),
        ] as [(String, [String: String], Bool)])
    func holding(key: String, traits: [String: String], holds: Bool) throws {
        #expect(try Selector(key: key).holds(in: Traits(traits)) == holds)
    }

    @Test("a holding block deep-merges into the enclosing object and wins; a failing one vanishes")
    func merging() throws {
        let text = """
            {
                \(twitterModels),
                "$User": {
                    "@class": "UserModel",
                    "name": { "@keyPath": "name", "@optional": true },
                    "@when apiVersion >= 2": {
                        "name": { "@keyPath": "full_name" },
                        "imageUrl": "avatar"
                    },
                    "@when apiVersion >= 3": { "imageUrl": "avatar_v3" },
                    "@debug": { "imageUrl": "debug_avatar" }
                }
            }
            """
        let v1 = try load(text, traits: ["apiVersion": "1"]).context("$User")!
        #expect(v1.rules.map(\.source.text) == ["name"])
        #expect(v1.rules[0].isOptional)
        let v2 = try load(text, traits: ["apiVersion": "2.10"]).context("$User")!
        #expect(v2.rules.map(\.source.text) == ["full_name", "avatar"])
        #expect(v2.rules[0].isOptional, "the selector block merges deeply: @optional stays")
        let v3 = try load(text, traits: ["apiVersion": "3", "build": "debug"]).context("$User")!
        #expect(v3.rules.map(\.source.text) == ["full_name", "debug_avatar"])
    }

    @Test("selectors work at the top level, around imports and contexts")
    func topLevel() throws {
        let files = [
            "main.mappings": #"{ "@when staging": { "@import": "staging", "$Only": {} } }"#,
            "staging.mappings": #"{ "$Staging": {} }"#,
        ]
        #expect(try load(files).identifiers == [])
        #expect(try load(files, traits: ["staging": "1"]).identifiers == ["$Only", "$Staging"])
    }

    @Test(
        "malformed selectors are errors that show the syntax",
        arguments: [
            (#"{ "@when": {} }"#, "error: malformed selector \"@when\": it names no trait"),
            (#"{ "@when x ~ 3": {} }"#, "error: malformed selector \"@when x ~ 3\": \"~ 3\" is not a comparison"),
            (#"{ "@when x >=": {} }"#, "error: malformed selector \"@when x >=\": nothing to compare \"x\" with"),
            (#"{ "@ios 7": {} }"#, "error: malformed selector \"@ios 7\""),
            (#"{ "@when x": 3 }"#, "error: the selector \"@when x\" must hold an object, not a number"),
        ])
    func malformed(text: String, prefix: String) {
        #expect(failure(text).hasPrefix(prefix + "\n --> main.mappings:1:"))
    }

    @Test("the rendered error for a malformed selector")
    func malformedRendered() {
        #expect(
            failure(#"{ "$A": { "@when apiVersion >> 2": {} } }"#) == """
                error: malformed selector "@when apiVersion >> 2": ">> 2" is not a comparison
                 --> main.mappings:1:11
                  |
                1 | { "$A": { "@when apiVersion >> 2": {} } }
                  |           ^^^^^^^^^^^^^^^^^^^^^^^
                  = help: write "@when <trait>" or "@when <trait> <op> <value>" with <op> one of < <= > >= == !=
                """)
    }
}
