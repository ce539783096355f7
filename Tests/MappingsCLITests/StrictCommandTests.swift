import Foundation
import MappingsTestSupport
import Testing

/// `--strict` on map, stream, serialize and test: contexts that say nothing of `"@conversions"`
/// convert strictly; one that says `"lenient"` stays so.
@Suite("--strict")
struct StrictCommandTests {
    static let catalog = """
        { "@models": { "I": { "b": "Bool", "n": "Int" } },
          "$I": { "@class": "I", "b": "b", "n": "n",
                  "@tests": [ { "input": { "b": "yes", "n": "5" }, "output": { "b": true, "n": 5 } } ] },
          "$Lenient": { "@class": "I", "@conversions": "lenient", "b": "b", "n": "n" } }
        """

    @Test("map, stream, serialize and test take --strict")
    func everyCommand() throws {
        let directory = try ToolRunner.directory(with: ["c.mappings": Self.catalog])
        defer { try? FileManager.default.removeItem(at: directory) }
        let loose = #"{"b": "yes", "n": "5"}"#
        for command in ["map", "stream"] {
            let plain = try ToolRunner.run(
                [command, "--mappings", "c.mappings", "--context", "$I"], in: directory, input: loose)
            #expect(plain.status == 0 && plain.stdout.contains(#"{"b":true,"n":5}"#), "\(command): \(plain)")
            let strict = try ToolRunner.run(
                [command, "--strict", "--mappings", "c.mappings", "--context", "$I"], in: directory, input: loose)
            #expect(strict.status != 0, "\(command): \(strict)")
            #expect(
                strict.stderr.contains("strict conversions take only a boolean")
                    || strict.stdout.contains("strict conversions"), "\(command): \(strict)")
            let lenient = try ToolRunner.run(
                [command, "--strict", "--mappings", "c.mappings", "--context", "$Lenient"], in: directory, input: loose)
            #expect(lenient.status == 0, "\(command): \(lenient)")
        }
        // serialize reads the object strictly: "5" is no Int there.
        let back = try ToolRunner.run(
            ["serialize", "--strict", "--mappings", "c.mappings", "--context", "$I"], in: directory,
            input: #"{"b": true, "n": "5"}"#)
        #expect(back.status != 0 && back.stderr.contains("strict conversions take only a number"), "\(back)")
        // The context's @tests pass leniently and fail strictly.
        let tests = try ToolRunner.run(["test", "--mappings", "c.mappings"], in: directory)
        #expect(tests.status == 0, "\(tests)")
        let strictTests = try ToolRunner.run(["test", "--strict", "--mappings", "c.mappings"], in: directory)
        #expect(strictTests.status != 0 && strictTests.stdout.contains("FAIL"), "\(strictTests)")
    }
}
