import Foundation
import MappingsTestSupport
import Testing

/// Every `console` block of the README, `docs/` and the examples' READMEs, run: each command's
/// output and exit status must be what the block shows (docs/doctests.md has the convention).
@Suite("The documentation's console blocks, run")
struct DocTests {
    /// The Markdown files whose blocks run: the README, docs/*.md, Examples/*/README.md.
    static let files: [String] = {
        let root = ToolRunner.packageRoot
        let docs =
            (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        let examples =
            (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Examples").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
            + examples.sorted().map { "Examples/\($0)/README.md" }.filter {
                FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path)
            }
    }()

    static let blocks = DocBlock.all(in: files, root: ToolRunner.packageRoot)

    @Test("the block prints what it shows and exits as it says", arguments: blocks)
    func block(_ block: DocBlock) throws {
        let outcomes = try DocShell.run(block)
        for (index, command) in block.commands.enumerated() {
            let location = SourceLocation(
                fileID: "Mappings/\(block.file)",
                filePath: ToolRunner.packageRoot.appendingPathComponent(block.file).path,
                line: command.line, column: 1)
            guard !command.text.isEmpty else {
                Issue.record("\(block.file):\(command.line): output before any `$ ` command", sourceLocation: location)
                continue
            }
            guard index < outcomes.count else {
                Issue.record(
                    "\(block.file):\(command.line): `\(command.text)` did not finish (the block stopped before it)",
                    sourceLocation: location)
                return
            }
            let outcome = outcomes[index]
            var actual = outcome.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if actual.last == "" { actual.removeLast() }
            let expected = ExpectedOutput(lines: command.output)
            if !expected.matches(actual) {
                Issue.record(
                    """
                    \(block.file):\(command.line): `\(command.text)` printed something else \
                    (- shown in the block, + printed):
                    \(expected.diff(against: actual))
                    """, sourceLocation: location)
            }
            if !command.statusShownByNext, outcome.status != command.status {
                Issue.record(
                    """
                    \(block.file):\(command.line): `\(command.text)` exited with status \(outcome.status), \
                    not \(command.status)\(command.status == 0 ? "" : " (its `# exit` comment)")
                    """, sourceLocation: location)
            }
        }
    }

    @Test("the documentation has console blocks to run, each with a command")
    func blocksFound() {
        #expect(Self.files.contains("docs/language.md"))
        #expect(Self.blocks.count >= 10, "\(Self.blocks.count) blocks")
    }
}

extension DocBlock: CustomTestStringConvertible {
    var testDescription: String { description }
}
