import Foundation
import MappingsTestSupport
import Testing

/// `mappings test --update`: failing tests expect what the contexts now give, after the diff.
@Suite("mappings test --update")
struct TestUpdateTests {
    static let models = #"{ "@models": { "P": { "name": "String", "age": "Int?" } } }"#
    static let context = #"""
        // People.
        {
            "$P": {
                "@class": "P",
                "name": "full_name", // renamed since
                "age": { "@keyPath": "age", "@optional": true },
                "@tests": [
                    { "name": "plain", "input": { "full_name": "Ann", "age": 3 }, "output": { "name": "Ann", "age": 3 } },
                    { "input": { "name": "Bo", "age": "old" }, "output": { "name": "Bo", "age": null } },
                    { "input": { "full_name": "Cy" }, "outputIncludes": { "name": "Cyril" } },
                    { "input": { "full_name": "Di", "age": 1 }, "output": { "name": "Di", "age": 1 } }
                ]
            }
        }
        """#

    @Test("the failing tests' output and issues are rewritten after their diff, fmt-clean; outputIncludes is left")
    func updates() throws {
        let folder = try ToolRunner.directory(with: [
            "contexts/models.mappings": Self.models, "contexts/p.mappings": Self.context,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = try ToolRunner.run(["test"], in: folder)
        #expect(plain.status == 1)
        let untouched = try String(contentsOf: folder.appendingPathComponent("contexts/p.mappings"), encoding: .utf8)
        #expect(untouched == Self.context, "test without --update wrote")

        let updated = try ToolRunner.run(["test", "--update"], in: folder)
        #expect(updated.status == 1, "a test it could not update")
        #expect(
            updated.stdout.contains(
                """
                --- contexts/p.mappings
                +++ contexts/p.mappings (updated)
                """))
        #expect(
            updated.stdout.contains(
                #"-            { "input": { "name": "Bo", "age": "old" }, "output": { "name": "Bo", "age": null } },"#))
        #expect(updated.stdout.contains("updated 1 test in contexts/p.mappings"), "\(updated.stdout)")
        #expect(
            updated.stdout.contains(
                #"not updated: $P test 3 (contexts/p.mappings:10): "outputIncludes" says which part matters: update it by hand"#
            ))
        let text = try String(contentsOf: folder.appendingPathComponent("contexts/p.mappings"), encoding: .utf8)
        #expect(text.contains("// renamed since"))
        #expect(text.contains(#""output": { "name": null, "age": null }"#), "\(text)")
        #expect(text.contains(#""kind": "missing required value""#))
        #expect(text.contains(#""kind": "conversion failed""#))
        // What it wrote is laid out as fmt lays it out, and passes but for the one left.
        let format = try ToolRunner.run(["fmt", "--check", "contexts/p.mappings"], in: folder)
        #expect(format.status == 0, "\(format.stdout)")
        let again = try ToolRunner.run(["test"], in: folder)
        #expect(again.stdout.hasSuffix("mappings test: 3 passed, 1 failed\n"), "\(again.stdout)")
        // Nothing fails: --update changes nothing.
        let passing = try ToolRunner.run(["test", "--update", "--context", "$P"], in: folder)
        #expect(passing.status == 1)
        let after = try String(contentsOf: folder.appendingPathComponent("contexts/p.mappings"), encoding: .utf8)
        #expect(after == text)
    }
}
