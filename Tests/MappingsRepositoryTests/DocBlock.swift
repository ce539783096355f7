import Foundation
import MappingsTestSupport

/// A `console` block of the documentation: commands after `$ `, each followed by the output it
/// prints (docs/doctests.md has the convention).
struct DocBlock: Sendable, CustomStringConvertible {
    /// One `$ ` command of a block and what it must print.
    struct Command: Sendable {
        /// The shell text, continuation lines (after a trailing `\`, `|`, `&&` or `||`) included.
        var text: String
        /// The 1-based line of the `$ ` in the Markdown file.
        var line: Int
        /// The status it must exit with: `# exit N` at its end, or 0.
        var status: Int32
        /// Whether the status is left to a following `$ echo $?` instead.
        var statusShownByNext: Bool
        /// The expected output lines (stdout and stderr together).
        var output: [String]
    }

    /// The Markdown file, relative to the repository's root.
    var file: String
    /// The 1-based line of the opening fence.
    var line: Int
    var commands: [Command]

    var description: String { "\(file):\(line)" }

    /// Every `console` block of `files` (paths relative to `root`), in file and line order.
    static func all(in files: [String], root: URL) -> [DocBlock] {
        files.flatMap { file -> [DocBlock] in
            guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) else {
                return []
            }
            return parse(text, file: file)
        }
    }

    /// The `console` blocks of one Markdown text; a fence may be indented (in a list item), and
    /// its lines lose that indentation.
    static func parse(_ text: String, file: String) -> [DocBlock] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [DocBlock] = []
        var index = 0
        while index < lines.count {
            let trimmed = lines[index].drop { $0 == " " }
            guard trimmed.hasPrefix("```") else {
                index += 1
                continue
            }
            let indent = lines[index].count - trimmed.count
            let ticks = trimmed.prefix { $0 == "`" }
            let info = trimmed.dropFirst(ticks.count).trimmingCharacters(in: .whitespaces)
            let fence = index
            var body: [String] = []
            index += 1
            // The closing fence has at least as many backticks, and nothing else.
            while index < lines.count,
                !(lines[index].trimmingCharacters(in: .whitespaces).hasPrefix(ticks)
                    && lines[index].trimmingCharacters(in: .whitespaces).allSatisfy { $0 == "`" })
            {
                body.append(String(lines[index].dropFirst(min(indent, lines[index].prefix { $0 == " " }.count))))
                index += 1
            }
            index += 1
            if info == "console" {
                blocks.append(DocBlock(file: file, line: fence + 1, commands: commands(in: body, firstLine: fence + 2)))
            }
        }
        return blocks
    }

    /// Splits a block's lines into commands and their outputs.
    private static func commands(in body: [String], firstLine: Int) -> [Command] {
        var commands: [Command] = []
        var index = 0
        while index < body.count {
            let line = body[index]
            guard line.hasPrefix("$ ") else {
                // Lines before the first command cannot be matched to one: keep them as a
                // command-less output so that the test reports them.
                if commands.isEmpty {
                    commands.append(
                        Command(text: "", line: firstLine + index, status: 0, statusShownByNext: false, output: []))
                }
                commands[commands.count - 1].output.append(line)
                index += 1
                continue
            }
            let start = index
            var text = String(line.dropFirst(2))
            while continues(text), index + 1 < body.count {
                index += 1
                text += "\n" + body[index]
            }
            index += 1
            if let previous = commands.indices.last, text.trimmingCharacters(in: .whitespaces) == "echo $?" {
                commands[previous].statusShownByNext = true
            }
            commands.append(
                Command(
                    text: text, line: firstLine + start, status: expectedStatus(of: text), statusShownByNext: false,
                    output: []))
        }
        return commands
    }

    /// Whether a command goes on on the next line, as in a shell: after a trailing `\`, `|`,
    /// `&&` or `||`.
    private static func continues(_ command: String) -> Bool {
        let line = command.split(separator: "\n").last.map(String.init) ?? command
        let end = line.trimmingCharacters(in: .whitespaces)
        return end.hasSuffix("\\") || end.hasSuffix("|") || end.hasSuffix("&&")
    }

    /// The `N` of a trailing `# exit N` comment, or 0.
    private static func expectedStatus(of command: String) -> Int32 {
        guard let range = command.range(of: "# exit ", options: .backwards) else { return 0 }
        return Int32(command[range.upperBound...].trimmingCharacters(in: .whitespaces)) ?? 0
    }
}
