import Foundation
import MappingsJSON
import MappingsModel
import MappingsTestSupport
import Testing

@testable import MappingsCompiler

/// What a load reports, and how: each mistake in its place, with help, in the order of the file.
@Suite("load diagnostics: every mistake, with help, in place order")
struct LoadDiagnosticTests {
    @Test(
        "a test's outputIncludes has the shape of what it maps: an object, or with many an array",
        arguments: [
            (
                #"{ "input": [{}], "many": true, "outputIncludes": { "name": null } }"#,
                #"error: "outputIncludes" is an object, but this test maps many payloads ("many": true)"#
            ),
            (
                #"{ "input": {}, "outputIncludes": [{ "name": null }] }"#,
                #"error: "outputIncludes" is an array, but this test maps one payload"#
            ),
        ])
    func outputIncludesShape(test: String, message: String) {
        let rendered = failure(#"{ "$A": { "name": { "@keyPath": "n", "@optional": true }, "@tests": [\#(test)] } }"#)
        #expect(rendered.hasPrefix(message), "\(rendered)")
        #expect(rendered.contains(" --> main.mappings:1:"))
        #expect(rendered.contains("= help: "))
    }

    @Test("every bad key path of a @keyPath list is reported in its place")
    func everyBadKeyPath() {
        let rendered = failure(#"{ "$A": { "v": { "@keyPath": ["ok", "c.@frist", "x\\q", 3] } } }"#)
        #expect(rendered.contains(#"error: unknown key path operator "@frist" in "c.@frist""#), "\(rendered)")
        #expect(rendered.contains(#"has an unknown escape "\q""#))
        #expect(rendered.contains(#"error: "@keyPath" lists key paths (strings), not a number"#))
        #expect(rendered.components(separatedBy: "error: ").count == 4)
    }

    @Test(
        "each of these load errors says how to fix it",
        arguments: [
            #""v": { "@keyPath": "v", "@valueMap": { "a": "x" } }"#,
            #""v": { "@keyPath": "v", "@valueMap": { "a": { "b": 1 } } }"#,
            #""c": { "@keyPath": "c", "@valueMap": { "a": "x" } }"#,
            #""v": { "@keyPath": "v", "@onElementError": "skip" }"#,
            #""c": { "@keyPath": "c", "@clearContent": true }"#,
            #""l": { "@keyPath": "l", "@object": { "@mappings": "$C" }, "@identity": ["n", "n"] }"#,
            #""v": { "@keyPath": "v", "@defaultValue": "old" }"#,
            #""g": { "@keyPath": "g", "@onElementError": "skip" }"#,
        ])
    func helpOnEveryError(entry: String) {
        let rendered = failure(
            """
            { "@models": { "C": { "n": "Int" }, "A": { "v": "Int", "c": "C?", "l": "[C]", "g": "[[Int]]" } },
              "$C": { "@class": "C", "n": "n" },
              "$A": { "@class": "A", \(entry) } }
            """)
        #expect(rendered.hasPrefix("error: "), "\(rendered)")
        #expect(rendered.contains("= help: "), "\(rendered)")
        #expect(!rendered.contains("nested context"), "\(rendered)")
    }

    @Test("a test with both into and many says which to remove")
    func intoAndMany() {
        let rendered = failure(
            #"{ "$A": { "n": "n", "@tests": [{ "input": [], "many": true, "into": {}, "output": [] }] } }"#)
        #expect(rendered.contains(#"error: a test populates one object ("into") or maps many ("many"), not both"#))
        #expect(rendered.contains("= help: "), "\(rendered)")
    }

    @Test("the warnings of a failed load are rendered among its errors, in the order of their places")
    func warningsInPlace() throws {
        let text = """
            { "@models": { "C": { "radius": "Double" } },
              "$C": { "@class": "C",
                "@when type == circle": { "radius": "r" },
                "x": "y" } }
            """
        do {
            _ = try load(text)
            Issue.record("the load succeeded")
        } catch {
            #expect(error.warnings.count == 1)
            let rendered = DiagnosticRenderer(sources: error.sources).render(
                error.diagnostics, warnings: error.warnings)
            let warning = try #require(rendered.range(of: "warning: \"type\" is a trait"))
            let failure = try #require(rendered.range(of: "error: C has no property \"x\""))
            #expect(warning.lowerBound < failure.lowerBound, "\(rendered)")
        }
    }

    @Test("a suggestion keeps something of the name: one letter is not close to another")
    func closeSuggestions() {
        #expect(Suggestion.closest(to: "x", among: ["1", "r"]) == nil)
        #expect(Suggestion.closest(to: "actve", among: ["active", "deleted"]) == "active")
        #expect(Suggestion.closest(to: "Active", among: ["active"]) == "active")
        #expect(Suggestion.closest(to: "x", among: ["xy"]) == "xy")
        #expect(
            Suggestion.help(for: "e\u{301}", among: ["\u{E9}"])
                == "did you mean \"\u{E9}\" (U+00E9, not U+0065 U+0301)?")
    }
}
