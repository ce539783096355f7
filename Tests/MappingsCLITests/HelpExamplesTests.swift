import Foundation
import MappingsTestSupport
import Testing

/// The examples `mappings <subcommand> --help` shows: each fits in 79 columns (so a terminal
/// does not wrap it mid-command) and runs as written against the shipped files.
@Suite("help examples copy-paste and run")
struct HelpExamplesTests {
    static let subcommands = ["check", "map", "stream", "test", "explain", "fetch", "serialize", "schema"]
    /// Subcommands whose examples are checked for width only: they rewrite files, or serve until stopped.
    static let servingOrWriting = ["init", "fmt", "lsp", "serve", "playground"]

    /// The example commands of `help`: the lines under `Example(s)…` (a paragraph), one command per line
    /// indented by two, continued by lines indented by four (after `\` or `|`).
    static func examples(in help: String) -> [String] {
        var commands: [String] = []
        var inExamples = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Example") || (inExamples && commands.isEmpty && !line.hasPrefix("  ")) {
                inExamples = !line.isEmpty
            } else if !inExamples || !line.hasPrefix("  ") {
                inExamples = false
            } else if line.hasPrefix("    "), !commands.isEmpty {
                commands[commands.count - 1] += "\n" + line
            } else {
                commands.append(String(line))
            }
        }
        return commands
    }

    @Test("each example line fits in 79 columns", arguments: subcommands + servingOrWriting)
    func width(subcommand: String) throws {
        let help = try ToolRunner.run([subcommand, "--help"])
        let commands = Self.examples(in: help.stdout)
        #expect(!commands.isEmpty)
        for line in commands.joined(separator: "\n").split(separator: "\n") {
            #expect(line.count <= 79, "\(line)")
        }
    }

    @Test("each example runs against the shipped files (fetch against the test server)", arguments: subcommands)
    func run(subcommand: String) throws {
        let help = try ToolRunner.run([subcommand, "--help"])
        let directory = try Fixtures.directory(with: [:])
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Inputs by link; the scripts copied, since a script's real path must stay inside --scripts.
        for shipped in ["Examples", "Tests"] {
            try FileManager.default.createSymbolicLink(
                at: directory.appendingPathComponent(shipped),
                withDestinationURL: ToolRunner.packageRoot.appendingPathComponent(shipped))
        }
        for shipped in ["contexts", "scripts"] {
            try FileManager.default.copyItem(
                at: ToolRunner.packageRoot.appendingPathComponent(shipped),
                to: directory.appendingPathComponent(shipped))
        }
        let server = subcommand == "fetch" ? try TestServer() : nil
        let tools = ToolRunner.executable.deletingLastPathComponent().path
        for example in Self.examples(in: help.stdout) {
            let command = server.map { example.replacingOccurrences(of: "http://127.0.0.1:8080/", with: $0.url("")) }
            let result = try ToolRunner.run(
                ["-c", "PATH='\(tools)':\"$PATH\"; set -o pipefail; " + (command ?? example)], in: directory,
                executable: URL(fileURLWithPath: "/bin/bash"))
            // 1 is "mapped with issues": the pipeline example has bad lines on purpose.
            #expect(result.status == 0 || result.status == 1, "\(example)\n\(result.stderr)")
            #expect(!result.stderr.contains("error:"), "\(example)\n\(result.stderr)")
        }
    }
}
