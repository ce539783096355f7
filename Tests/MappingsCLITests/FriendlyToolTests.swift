import Foundation
import MappingsTestSupport
import Testing

/// The tool's messages to people: unknown names with the closest known one, the system's
/// reason for every file it cannot read or write, numbers refused with their range, trait
/// names checked, and colors only when asked for or on a terminal.
@Suite("mappings, for people: did you mean, reasons, ranges, traits, colors")
struct FriendlyToolTests {
    static let mapUsage = """
        Usage: mappings map [<options>] [<input>]
          See 'mappings map --help' for more information.

        """

    @Test("an unknown subcommand is named, with the closest one")
    func unknownSubcommand() throws {
        let result = try ToolRunner.run(["mapp", "--context", "$TweetModel", "f.json"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                Error: Unknown subcommand 'mapp'. Did you mean 'map'?
                Usage: mappings <subcommand>
                  See 'mappings --help' for more information.

                """)
        let far = try ToolRunner.run(["frobnicate"])
        #expect(far.status == 2)
        #expect(
            far.stderr.hasPrefix(
                "Error: Unknown subcommand 'frobnicate'. The subcommands are init, check, map, stream, test, explain, fetch, serialize, schema, fmt, lsp, serve, playground, help.\n"
            ))
    }

    @Test("an unknown option is named, with the closest one, even when a required option is missing too")
    func unknownOption() throws {
        for arguments in [["map", "--contxt", "X", "f.json"], ["map", "--context", "X", "--contxt=Y", "f.json"]] {
            let result = try ToolRunner.run(arguments)
            #expect(result.status == 2)
            #expect(result.stderr == "Error: Unknown option '--contxt'. Did you mean '--context'?\n" + Self.mapUsage)
        }
    }

    @Test(
        "a number out of range is refused with the range, negative ones too, with or without '='",
        arguments: [
            (["map", "--lua-timeout", "-5"], "--lua-timeout must be between 1 and 3600000 ms, not -5"),
            (["map", "--lua-timeout=-5"], "--lua-timeout must be between 1 and 3600000 ms, not -5"),
            (["map", "--lua-memory", "-1"], "--lua-memory must be between 1 and 1048576 MiB, not -1"),
            (["map", "--lua-budget", "-5"], "--lua-budget must be at least 1000 instructions, not -5"),
            (["map", "--lua-max-result", "0"], "--lua-max-result must be between 1 and 1024 MiB, not 0"),
            (["stream", "--workers", "-2"], "--workers must be between 1 and 256, not -2"),
            (["stream", "--max-in-flight", "-1"], "--max-in-flight must be between 1 and 65536 MiB, not -1"),
            (["stream", "--reload-timeout", "-3"], "--reload-timeout must be between 1 and 86400 seconds, not -3"),
        ])
    func ranges(arguments: [String], message: String) throws {
        let result = try ToolRunner.run(arguments + ["--context", "$TweetModel"], input: "{}")
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("Error: \(message)\nUsage: mappings \(arguments[0]) "))
    }

    @Test("fetch --timeout takes a positive number of seconds")
    func fetchTimeout() throws {
        let result = try ToolRunner.run(["fetch", "http://127.0.0.1:1/", "--context", "$TweetModel", "--timeout", "-5"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: --timeout must be a positive number of seconds, not -5\n"))
    }

    @Test("a trait name that is not one is refused; an empty value is a value")
    func traitNames() throws {
        let result = try ToolRunner.run(["map", "--trait", "a b=1", "--context", "$UserModel"], input: "{}")
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                Error: --trait 'a b=1': "a b" is not a trait name (letters, digits, '_', '.' and '-', not starting with a digit)

                """ + Self.mapUsage)
        let digit = try ToolRunner.run(["check", "--trait", "2x"])
        #expect(digit.status == 2)
        #expect(digit.stderr.hasPrefix(#"Error: --trait '2x': "2x" is not a trait name"#))
        let empty = try ToolRunner.run(["check", "--trait", "build.type-2="])
        #expect(empty.status == 0, "\(empty.stderr)")
    }

    @Test("every file the tool cannot read or write is named with the system's reason")
    func fileReasons() throws {
        let directory = try ToolRunner.directory(with: [
            "t.mappings": #"{ "@import": "gone", "$U": { "@class": "JSON" } }"#
        ])
        let cases: [([String], String)] = [
            (
                ["map", "--context", "$TweetModel", "nosuch.json"],
                #"cannot read the input "nosuch.json": No such file or directory"#
            ),
            (
                ["map", "--context", "$TweetModel", "--into", "nosuch.json", "Examples/twitter/tweet.json"],
                #"cannot read --into "nosuch.json": No such file or directory"#
            ),
            (
                ["map", "--context", "$TweetModel", "--report", "Examples", "Examples/twitter/tweet.json"],
                #"cannot write the report "Examples": Is a directory"#
            ),
            (
                ["stream", "--context", "$TweetModel", "--rejects", "no/such/r.ndjson"],
                #"cannot write the rejects file "no/such/r.ndjson": No such file or directory"#
            ),
            (
                ["stream", "--context", "$TweetModel", "--stats", "Examples", "Examples/pipeline/tweets.ndjson"],
                #"cannot write the stats file "Examples": Is a directory"#
            ),
            (
                ["check", "--scripts", "nosuch"],
                #"cannot read the scripts directory "nosuch": No such file or directory"#
            ),
            (["check", "--scripts", "README.md"], #"cannot read the scripts directory "README.md": Not a directory"#),
            (
                ["fetch", "http://127.0.0.1:1/", "--context", "$TweetModel", "--data", "@nosuch"],
                #"cannot read --data "nosuch": No such file or directory"#
            ),
        ]
        for (arguments, message) in cases {
            let result = try ToolRunner.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasSuffix("error: " + message + "\n"), "\(arguments)")
            #expect(result.stdout.isEmpty, "exit 2 leaves nothing on stdout: \(arguments)")
        }
        let imported = try ToolRunner.run(["check", "--mappings", directory.appendingPathComponent("t.mappings").path])
        #expect(imported.status == 2)
        #expect(imported.stderr.contains(#"gone.mappings": No such file or directory"#))
    }

    @Test("invalid JSON in --data points at --data, not stdin")
    func dataLocation() throws {
        let result = try ToolRunner.run(["fetch", "http://127.0.0.1:1/", "--context", "$TweetModel", "--data", "{bad"])
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                error: --data is not valid JSON: expected a key in double quotes
                 --> --data:1:2

                """)
    }

    @Test("--color always colors diagnostics; never, and auto without a terminal, do not")
    func colors() throws {
        let arguments = ["check", "--mappings", "Examples/language/broken.mappings"]
        let always = try ToolRunner.run(arguments + ["--color", "always"])
        #expect(always.status == 2)
        #expect(always.stderr.hasPrefix("\u{1B}[1;31merror:\u{1B}[0m unknown class \"Prodcut\"\n"))
        #expect(always.stderr.contains("  |                   \u{1B}[1;31m^^^^^^^^^\u{1B}[0m\n"))
        #expect(always.stderr.contains("  = \u{1B}[1;36mhelp:\u{1B}[0m did you mean \"Product\"?\n"))
        let never = try ToolRunner.run(arguments + ["--color", "never"])
        let auto = try ToolRunner.run(arguments)
        #expect(!never.stderr.contains("\u{1B}"))
        #expect(never.stderr.hasPrefix("error: unknown class \"Prodcut\"\n"))
        #expect(auto.stderr == never.stderr)
        let message = try ToolRunner.run(["map", "--context", "$TweetModel", "nosuch.json", "--color", "always"])
        #expect(
            message.stderr
                == "\u{1B}[1;31merror:\u{1B}[0m cannot read the input \"nosuch.json\": No such file or directory\n")
    }
}
