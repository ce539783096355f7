import Foundation
import MappingsTestSupport
import Testing

/// The README's command reference against the tool's help: every command `mappings help` lists,
/// with every option `mappings help COMMAND` shows and the values it lists, and nothing else.
/// `tools/readme-reference` writes the reference; this says what it would change.
@Suite("the README's command reference is the tool's")
struct ReadmeReferenceTests {
    /// The options of a command by long name, each with the values its help lists (none when it
    /// lists none).
    typealias Options = [String: Set<String>]

    static let fix = "run tools/readme-reference and commit README.md"

    /// The subcommands `mappings help` lists (not `help` itself): a name indented by two, its
    /// description's next lines by more.
    static func subcommands(inHelp help: String) -> [String] {
        var names: [String] = []
        var inList = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("SUBCOMMANDS:") {
                inList = true
            } else if inList, line.hasPrefix("  "), !line.hasPrefix("   "),
                let name = line.split(separator: " ").first, name.first?.isLowercase == true
            {
                names.append(String(name))
            } else if inList, !line.hasPrefix("   ") {
                inList = false  // a blank line ends the list
            }
        }
        return names.filter { $0 != "help" }
    }

    /// The options `mappings help COMMAND` shows (not `--help` and `--version`), with the values
    /// its description lists as `(values: a, b; …)`.
    static func options(inHelp help: String) -> Options {
        var options: Options = [:]
        var current: String?
        var description = ""
        func finish() {
            guard let name = current else { return }
            var values: Set<String> = []
            if let range = description.range(of: "(values: ") {
                let list = description[range.upperBound...].prefix { $0 != ";" && $0 != ")" }
                values = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            }
            options[name] = values
        }
        var inOptions = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("OPTIONS:") {
                inOptions = true
                continue
            }
            guard inOptions else { continue }
            let words = line.split(separator: " ")
            if line.hasPrefix("  -"), let long = words.first(where: { $0.hasPrefix("--") }) {
                finish()
                current = String(long.dropFirst(2))
                description = String(line)
            } else if line.hasPrefix("   ") {
                description += " " + line.trimmingCharacters(in: .whitespaces)
            } else if !line.isEmpty {
                inOptions = false
            }
        }
        finish()
        options["help"] = nil
        options["version"] = nil
        return options
    }

    /// The reference between the README's markers: each command's options, with `[LOADING]`
    /// standing for the options the `LOADING` entry gives; an option written `--name a|b` has
    /// the values `a` and `b`.
    static func reference(inReadme readme: String) -> [String: Options] {
        guard let begin = readme.range(of: "<!-- reference:begin -->"),
            let end = readme.range(of: "<!-- reference:end -->", range: begin.upperBound..<readme.endIndex)
        else { return [:] }
        var entries: [(name: String, text: String)] = []
        for line in readme[begin.upperBound..<end.lowerBound].split(separator: "\n") {
            let words = line.split(separator: " ")
            if line.hasPrefix("mappings "), words.count > 1 {
                entries.append((String(words[1]), String(line.dropFirst("mappings ".count + words[1].count))))
            } else if line.hasPrefix("LOADING") {
                entries.append(("LOADING", ""))
            } else if line.hasPrefix(" "), !entries.isEmpty {
                entries[entries.count - 1].text += " " + line
            }
        }
        func options(_ text: String) -> Options {
            var found: Options = [:]
            let words = text.split(whereSeparator: { $0 == " " || $0 == "[" || $0 == "]" })
            for (index, word) in words.enumerated() where word.hasPrefix("--") {
                let next = index + 1 < words.count ? words[index + 1] : ""
                let written = next.hasPrefix("--") ? "" : next
                found[String(word.dropFirst(2))] =
                    written.contains("|") ? Set(written.split(separator: "|").map(String.init)) : []
            }
            return found
        }
        let loading = entries.first { $0.name == "LOADING" }.map { options($0.text) } ?? [:]
        var commands: [String: Options] = [:]
        for entry in entries where entry.name != "LOADING" {
            var found = options(entry.text)
            if entry.text.contains("[LOADING]") { found.merge(loading) { own, _ in own } }
            commands[entry.name] = found
        }
        return commands
    }

    static func readme() throws -> String {
        try String(contentsOf: ToolRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    }

    @Test("the reference has every command mappings help lists, and no other")
    func commands() throws {
        let listed = Self.subcommands(inHelp: try ToolRunner.run(["help"]).stdout)
        #expect(listed.contains("map") && listed.contains("init"), "mappings help lists no subcommands as read")
        let written = Self.reference(inReadme: try Self.readme())
        for command in listed where written[command] == nil {
            Issue.record("README.md's reference lacks `mappings \(command)`, which mappings help lists: \(Self.fix)")
        }
        for command in written.keys.sorted() where !listed.contains(command) {
            Issue.record(
                "README.md's reference has `mappings \(command)`, which mappings help does not list: \(Self.fix)")
        }
    }

    @Test("each command's reference has every option its help shows, with the values it lists, and no other")
    func options() throws {
        let written = Self.reference(inReadme: try Self.readme())
        for command in Self.subcommands(inHelp: try ToolRunner.run(["help"]).stdout) {
            guard let reference = written[command] else { continue }  // the test above says so
            let help = Self.options(inHelp: try ToolRunner.run(["help", command]).stdout)
            for (option, values) in help.sorted(by: { $0.key < $1.key }) {
                guard let shown = reference[option] else {
                    Issue.record(
                        "README.md's reference of `mappings \(command)` lacks --\(option), which mappings help \(command) shows: \(Self.fix)"
                    )
                    continue
                }
                if !values.isEmpty && shown != values {
                    Issue.record(
                        "README.md's reference of `mappings \(command)` writes --\(option) \(shown.sorted().joined(separator: "|")), mappings help \(command) lists \(values.sorted().joined(separator: "|")): \(Self.fix)"
                    )
                }
            }
            for option in reference.keys.sorted() where help[option] == nil {
                Issue.record(
                    "README.md's reference of `mappings \(command)` has --\(option), which mappings help \(command) does not show: \(Self.fix)"
                )
            }
        }
    }

    @Test("the reader of the reference expands LOADING and reads values and repeats")
    func readsTheReference() {
        let readme = """
            <!-- reference:begin -->
            ```
            mappings schema     [LOADING] [--format json-schema|spark]
                                [--many] [INPUT]...
            mappings fmt        [--check] [PATH]...

            LOADING, the options of every command that loads .mappings files:
                                [--mappings PATH]... [--color auto|never]
            ```
            <!-- reference:end -->
            mappings map --not-in-the-reference
            """
        #expect(
            Self.reference(inReadme: readme) == [
                "schema": [
                    "format": ["json-schema", "spark"], "many": [], "mappings": [], "color": ["auto", "never"],
                ],
                "fmt": ["check": []],
            ])
    }
}
