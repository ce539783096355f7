import Mappings
import MappingsTestSupport
import Testing

@Suite("tests inside mapping files")
struct ContextTestTests {
    static let text = """
        {
            "@models": { "U": { "name": "String", "age": "Int?" } },
            "$U": {
                "@class": "U",
                "name": "n",
                "age": { "@keyPath": "a", "@optional": true },
                "@tests": [
                    { "name": "good", "input": { "n": "Ann", "a": 3 }, "output": { "age": 3.0, "name": "Ann" } },
                    { "input": { "n": "Bo" }, "output": { "name": "Al", "age": null, "x": 1 } },
                    { "input": {}, "issues": [ { "path": "$.n", "kind": "missing required value", "message": "U.name" } ] },
                    { "input": {}, "issues": [ { "path": "$.m" }, { "kind": "conversion failed" } ] },
                    { "input": { "n": 1, "a": "x" } },
                    { "input": [ { "n": "a" }, { "n": "b" } ], "many": true, "output": [ { "name": "a", "age": null }, { "name": "b", "age": null } ] }
                ]
            },
            "$Child": { "@inherits": "$U", "name": "other" }
        }
        """

    @Test("each test maps its input and reports what differs, line by line")
    func results() throws {
        let results = ContextTestRunner.run(try load(Self.text))
        #expect(results.map(\.context) == Array(repeating: "$U", count: 6))
        #expect(results.map(\.passed) == [true, false, true, false, false, true])
        #expect(results[0].title == #"$U test 1 "good" (main.mappings:8)"#)
        #expect(
            results[1].failures == [
                #"$.name: expected "Al", got "Bo""#, "$.x: expected 1, but the output has no such key",
            ])
        #expect(
            results[3].failures == [
                "expected 2 issues, got 1",
                #"issue 1: expected path "$.m", got $.n: missing required value for U.name (main.mappings:5)"#,
                #"missing issue: kind "conversion failed""#,
            ])
        #expect(
            results[4].failures == [
                "expected 0 issues, got 1",
                "unexpected issue: $.a: expected Int, found string \"x\", which is not a whole number (main.mappings:6)",
            ])
    }

    @Test("a test's shape is checked when the file loads")
    func shapes() {
        let text = failure(
            """
            { "$X": { "a": "a", "@tests": [ { "inptu": 1 }, 3, { "input": 1, "issues": [ { "pth": "$" } ] } ] } }
            """)
        #expect(text.contains(#"error: unknown key "inptu" in a test"#))
        #expect(text.contains(#"= help: did you mean "input"?"#))
        #expect(text.contains(#"error: this test has no "input""#))
        #expect(text.contains("error: a test is an object with \"input\" and \"output\" or \"issues\", not a number"))
        #expect(text.contains(#"error: unknown key "pth" in an expected issue"#))
        #expect(
            failure(#"{ "$X": { "a": "a", "@tests": {} } }"#).contains(
                #"error: "@tests" takes an array of tests, not an object"#))
    }

    static let includes = """
        {
            "@models": { "U": { "name": "String", "age": "Int?", "tags": "[String]?", "friend": "U?" } },
            "$U": {
                "@class": "U",
                "name": "n",
                "age": { "@keyPath": "a", "@optional": true },
                "tags": { "@keyPath": "t", "@optional": true },
                "friend": { "@keyPath": "f", "@optional": true, "@object": { "@class": "U", "@mappings": "$U" } },
                "@tests": [
                    { "input": { "n": "Ann", "a": 3, "f": { "n": "Bo" } },
                      "outputIncludes": { "name": "Ann", "friend": { "name": "Bo", "nope": null } } },
                    { "input": { "n": "Ann", "t": ["x", "y"], "f": { "n": "Bo", "a": 1 } },
                      "outputIncludes": { "age": 3, "tags": ["x"], "friend": { "age": 2, "x": 1 } } },
                    { "input": { "n": "Ann", "t": ["x", "y"] }, "outputIncludes": { "tags": ["x", "y"], "age": null } }
                ]
            }
        }
        """

    @Test("outputIncludes checks only the keys it lists, recursively; arrays match whole; null matches absent")
    func outputIncludes() throws {
        let results = ContextTestRunner.run(try load(Self.includes))
        #expect(results.map(\.passed) == [true, false, true], "\(results.map(\.failures))")
        #expect(
            results[1].failures == [
                "$.age: expected 3, got null", "$.tags: expected 1 elements, got 2", "$.friend.age: expected 2, got 1",
                "$.friend.x: expected 1, but the output has no such key",
            ])
    }

    @Test("outputIncludes is checked when the file loads")
    func outputIncludesShape() {
        let both = failure(
            #"{ "$X": { "a": "a", "@tests": [ { "input": {}, "output": {}, "outputIncludes": {} } ] } }"#)
        #expect(both.contains(#"error: a test has "output" or "outputIncludes", not both"#))
        let scalar = failure(#"{ "$X": { "a": "a", "@tests": [ { "input": {}, "outputIncludes": 3 } ] } }"#)
        #expect(
            scalar.contains(
                #"error: "outputIncludes" is an object (or, with "many", an array) of what the output must hold, not a number"#
            ))
        let typo = failure(#"{ "$X": { "a": "a", "@tests": [ { "input": {}, "outputInclude": {} } ] } }"#)
        #expect(typo.contains(#"= help: did you mean "outputIncludes"?"#))
    }
}
