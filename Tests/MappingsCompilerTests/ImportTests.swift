import Foundation
import Mappings
import MappingsTestSupport
import Testing

@Suite("@import and the identifier rule")
struct ImportTests {
    @Test("an import is relative to the importing file, and .mappings is added when there is no extension")
    func relativeImport() throws {
        let catalog = try load([
            "main.mappings": #"{ "@import": "lib/users", "$Main": { "@class": "User", "name": "n" } }"#,
            "lib/users.mappings":
                #"{ "@import": ["../shared/models.mappings"], "$User": { "@class": "User", "name": "n" } }"#,
            "shared/models.mappings": #"{ "@models": { "User": { "name": "String" } } }"#,
        ])
        #expect(catalog.identifiers == ["$Main", "$User"])
        #expect(catalog.files == ["main.mappings", "lib/users.mappings", "shared/models.mappings"])
    }

    @Test("a diamond loads the shared file once, and a cycle terminates")
    func diamondAndCycle() throws {
        let catalog = try load([
            "main.mappings": #"{ "@import": ["a", "b"] }"#,
            "a.mappings": #"{ "@import": "shared", "$A": {} }"#,
            "b.mappings": #"{ "@import": ["shared", "main"], "$B": {} }"#,
            "shared.mappings": #"{ "@import": "a", "$Shared": {} }"#,
        ])
        #expect(catalog.files == ["main.mappings", "a.mappings", "shared.mappings", "b.mappings"])
        #expect(catalog.identifiers == ["$A", "$Shared", "$B"])
    }

    @Test("a missing import names the importing place")
    func missingImport() {
        #expect(
            failure(["main.mappings": "{\n  \"@import\": [\"nope\"]\n}"]) == """
                error: cannot read "nope.mappings": No such file or directory
                 --> main.mappings:2:15
                  |
                2 |   "@import": ["nope"]
                  |               ^^^^^^
                  = help: check the path: it is relative to the importing file
                """)
    }

    @Test("a directory root loads its .mappings files in name order")
    func directoryRoot() throws {
        let catalog = try load(
            [
                "contexts/b.mappings": #"{ "$B": {} }"#,
                "contexts/a.mappings": #"{ "$A": {} }"#,
                "contexts/notes.txt": "not loaded",
                "contexts/sub/c.mappings": #"{ "$C": {} }"#,
            ], roots: ["contexts"])
        #expect(catalog.identifiers == ["$A", "$B"])
    }

    @Test("a missing root is reported without a location")
    func missingRoot() {
        #expect(
            failure([:], roots: ["nowhere"]) == """
                error: no such file or directory: "nowhere"
                  = help: name a .mappings file or a directory of them: no file is held in memory
                """)
    }

    @Test("the importing file's definition overrides the imported one, transitively")
    func deliberateOverride() throws {
        let catalog = try load([
            "main.mappings": #"{ "@import": "middle", "$X": { "winner": "main" } }"#,
            "middle.mappings": #"{ "@import": "base", "$X": { "winner": "middle" } }"#,
            "base.mappings": #"{ "$X": { "winner": "base" }, "$Y": {} }"#,
        ])
        #expect(catalog.context("$X")?.rules.map(\.source.text) == ["main"])
        #expect(catalog.identifiers == ["$X", "$Y"])
    }

    @Test("the same identifier in two files that do not import each other is an error")
    func conflictingDefinitions() {
        #expect(
            failure(
                [
                    "a.mappings": "{\n  \"$X\": {}\n}",
                    "b.mappings": "{ \"$X\": {} }",
                ], roots: ["a.mappings", "b.mappings"]) == """
                    error: the context "$X" is declared in 2 files that do not import each other
                     --> b.mappings:1:3
                      |
                    1 | { "$X": {} }
                      |   ^^^^
                      = note: also declared here
                     --> a.mappings:2:3
                      |
                    2 |   "$X": {}
                      |   ^^^^
                      = help: rename one, or @import one file from the other so that the importing file overrides
                    """)
    }

    @Test("two sibling imports defining the same model conflict even when a third file imports both")
    func siblingConflict() {
        let text = failure([
            "main.mappings": #"{ "@import": ["a", "b"] }"#,
            "a.mappings": #"{ "@models": { "M": { "x": "Int" } } }"#,
            "b.mappings": #"{ "@models": { "M": { "x": "String" } } }"#,
        ])
        #expect(
            text.hasPrefix(
                "error: the model \"M\" is declared in 2 files that do not import each other\n --> b.mappings:1:16"))
    }

    @Test(
        "@import takes strings only",
        arguments: [
            (#"{ "@import": 3 }"#, "\"@import\" takes a path or an array of paths, not a number"),
            (#"{ "@import": [""] }"#, "an import is a non-empty path string, not an empty string"),
            (#"{ "@import": [true] }"#, "an import is a non-empty path string, not a boolean"),
        ])
    func importShape(text: String, message: String) {
        #expect(failure(text).hasPrefix("error: \(message)\n"))
    }

    @Test("an unknown top-level keyword suggests the closest one")
    func unknownTopLevel() {
        #expect(
            failure(#"{ "@imprt": "x" }"#) == """
                error: unknown top-level keyword "@imprt"
                 --> main.mappings:1:3
                  |
                1 | { "@imprt": "x" }
                  |   ^^^^^^^^
                  = help: did you mean "@import"?
                """)
    }

    @Test("a file whose root is not an object is an error")
    func rootNotObject() {
        #expect(
            failure("[1, 2]").hasPrefix(
                "error: a .mappings file holds a JSON object, not an array\n --> main.mappings:1:1"))
    }

    @Test("after a file that does not parse, names it may declare are unknown, not missing; other problems stand")
    func noCascadeAfterSyntaxError() {
        let text = failure([
            "main.mappings": """
            { "@import": ["models", "other"],
              "$A": { "@class": "Broken", "at": { "@keyPath": "at", "@dateFormat": "yyyy" } },
              "$B": { "@inherits": "$FromOther", "@class": "Known", "name": "n" },
              "$C": { "@class": "Known", "nme": "n" },
              "$D": { "@class": "Known", "broken": { "@keyPath": "b", "@object": { "@mappings": "$Elsewhere" } } } }
            """,
            "models.mappings": #"{ "@models": { "Known": { "name": "String", "broken": "Broken?" } } }"#,
            "other.mappings": #"{ "@models": { "Broken": { "at": "Date" } }, "$FromOther": {} "x": 1 }"#,
        ])
        let errors = text.components(separatedBy: "\nerror: ").count
        #expect(errors == 2, "\(text)")
        #expect(text.contains("other.mappings:1:62"))
        #expect(text.contains("the models and contexts of other.mappings are unknown until it parses"))
        #expect(text.contains(#"Known has no property "nme""#))
        for cascade in ["Broken", "FromOther", "Elsewhere", "needs a Date"] {
            #expect(!text.contains("unknown class \"\(cascade)") && !text.contains("\"\(cascade)\" names no context"))
            #expect(!text.contains("unknown type \"\(cascade)"))
        }
        #expect(!text.contains("needs a Date"))
    }

    @Test("every problem of a load is reported, across files")
    func allErrorsReported() {
        let text = failure([
            "main.mappings": #"{ "@import": "other", "$A": { "@clas": "X" } }"#,
            "other.mappings": #"{ "$B": { "a": 3 }, }  x"#,
        ])
        #expect(text.components(separatedBy: "\nerror: ").count == 2)
        #expect(text.contains("main.mappings:1:31"))
        #expect(text.contains("other.mappings:1:24"))
    }
}
