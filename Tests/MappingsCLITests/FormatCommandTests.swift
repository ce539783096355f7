import Foundation
import MappingsTestSupport
import Testing

/// `mappings fmt` as the tool: lays files out, `--check` lists those that would change (exit 1),
/// a file that does not parse is exit 2 and left alone.
@Suite("mappings fmt")
struct FormatCommandTests {
    @Test("fmt lays out, fmt --check lists what would change, and a broken file is refused")
    func format() throws {
        let loose = #"{"$A":{"n":"n", // kept"# + "\n" + #""m":{"@keyPath":"m"}}}"# + "\n"
        let directory = try ToolRunner.directory(with: [
            "contexts/a.mappings": loose, "contexts/b.mappings": "{\n    \"$B\": {\n        \"x\": \"x\"\n    }\n}\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let check = try ToolRunner.run(["fmt", "--check"], in: directory)
        #expect(check.status == 1 && check.stdout == "contexts/a.mappings\n", "\(check)")
        let format = try ToolRunner.run(["fmt"], in: directory)
        #expect(format.status == 0 && format.stdout == "formatted contexts/a.mappings\n", "\(format)")
        let text = try String(contentsOf: directory.appendingPathComponent("contexts/a.mappings"), encoding: .utf8)
        #expect(
            text
                == "{\n    \"$A\": {\n        \"n\": \"n\", // kept\n        \"m\": { \"@keyPath\": \"m\" }\n    }\n}\n"
        )
        let again = try ToolRunner.run(["fmt", "--check", "contexts"], in: directory)
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again)")
        // The formatted files load as before.
        let loads = try ToolRunner.run(["check"], in: directory)
        #expect(loads.status == 0, "\(loads)")
        try "{ \"$C\": ".write(
            to: directory.appendingPathComponent("contexts/c.mappings"), atomically: true, encoding: .utf8)
        let broken = try ToolRunner.run(["fmt"], in: directory)
        #expect(broken.status == 2 && broken.stderr.contains("contexts/c.mappings does not parse"), "\(broken)")
    }

    @Test("a byte that is not UTF-8, in a comment or a key: exit 2 and the file untouched, as check refuses it")
    func invalidUTF8() throws {
        for (name, bytes) in [
            ("comment", Array("{\n    // a \u{1}".utf8) + [0xFF] + Array("\n    \"$A\": { \"x\": \"x\" }\n}\n".utf8)),
            ("key", Array("{\"$A\":{\"x".utf8) + [0xFF, 0xFE] + Array("\":\"x\"}}".utf8)),
        ] {
            let directory = try ToolRunner.directory(with: ["README": ""])
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("a.mappings")
            try Data(bytes).write(to: file)
            let format = try ToolRunner.run(["fmt", "a.mappings"], in: directory)
            #expect(format.status == 2, "\(name): \(format)")
            #expect(format.stderr.contains("a.mappings:"), "\(name): \(format)")
            #expect(format.stderr.contains("the file is not valid UTF-8: not laid out, left as it is"), "\(format)")
            #expect(try Data(contentsOf: file) == Data(bytes), "\(name): the file changed")
            let check = try ToolRunner.run(["check", "--mappings", "a.mappings"], in: directory)
            #expect(check.status == 2 && check.stderr.contains("not valid UTF-8"), "\(name): \(check)")
        }
    }
}
