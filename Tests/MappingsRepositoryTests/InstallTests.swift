import Foundation
import MappingsTestSupport
import Testing

/// The tool as an operator gets it: `tools/install` into a temporary prefix, then the installed
/// tool, manual page and bash completion used as a shell would; and `tools/mappings` run from
/// another folder.
///
/// `tools/install` installs the build these tests run from (its scratch path and configuration,
/// normally the debug build that `swift build --build-tests` made), so that it compiles nothing
/// but the GenerateManual plugin's tool, once. `swift test` holds SwiftPM's lock on that scratch
/// path while the tests run, hence `--ignore-lock`: the builds it starts find nothing to do.
@Suite("Installing the tool", .serialized)
struct InstallTests {
    /// The scratch path and configuration of the build under test: the tool is in
    /// `SCRATCH/TRIPLE/CONFIGURATION/` (or `SCRATCH/CONFIGURATION/`), and SCRATCH holds
    /// `workspace-state.json`.
    static let build: (scratch: URL, configuration: String) = {
        let folder = ToolRunner.executable.deletingLastPathComponent()
        var scratch = folder
        while scratch.path != "/",
            !FileManager.default.fileExists(atPath: scratch.appendingPathComponent("workspace-state.json").path)
        {
            scratch.deleteLastPathComponent()
        }
        return (scratch, folder.lastPathComponent)
    }()

    static let installed = [
        "bin/mappings", "bin/mappings-lua-worker", "bin/mappings-fetch", "bin/mappings-server",
        "share/man/man1/mappings.1",
        "share/bash-completion/completions/mappings", "share/zsh/site-functions/_mappings",
        "share/fish/vendor_completions.d/mappings.fish",
    ]

    @Test("tools/install puts the tool, its worker, the manual page and three completions under PREFIX, once")
    func install() throws {
        let prefix = try ToolRunner.directory(with: [:]).appendingPathComponent("prefix with a space")
        defer { try? FileManager.default.removeItem(at: prefix.deletingLastPathComponent()) }
        let arguments = [
            "--scratch-path", Self.build.scratch.path, "--configuration", Self.build.configuration, "--ignore-lock",
            prefix.path,
        ]
        let install = try ToolRunner.runProgram(
            ToolRunner.packageRoot.appendingPathComponent("tools/install"), arguments)
        try #require(install.status == 0, "\(install.stderr)")
        #expect(install.stdout == Self.installed.map { "installed   \(prefix.path)/\($0)\n" }.joined())

        let again = try ToolRunner.runProgram(ToolRunner.packageRoot.appendingPathComponent("tools/install"), arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == Self.installed.map { "up to date  \(prefix.path)/\($0)\n" }.joined())

        let bin = prefix.appendingPathComponent("bin")
        let help = try ToolRunner.runProgram(bin.appendingPathComponent("mappings"), ["--help"])
        #expect(help.status == 0, "\(help.stderr)")
        #expect(help.stdout.contains("USAGE: mappings <subcommand>"), "\(help.stdout)")

        // The worker of --lua-isolation process is found next to the installed tool, with no
        // build folder on the PATH; $TweetModel's coordinates come from a Lua transformer.
        let isolated = try ToolRunner.runProgram(
            bin.appendingPathComponent("mappings"),
            ["map", "--context", "$TweetModel", "--lua-isolation", "process", "Examples/twitter/tweet.json"],
            environment: ["PATH": "/usr/bin:/bin", "MAPPINGS_LUA_WORKER": ""])
        #expect(isolated.status == 0, "\(isolated.stderr)")
        #expect(isolated.stdout.contains(#""coordinates":{"latitude":35.46500176,"longitude":-97.51087576}"#))

        // `fetch` runs mappings-fetch from beside the installed tool, with no build folder on the PATH.
        let server = try TestServer.twitterPayloads()
        let fetched = try ToolRunner.runProgram(
            bin.appendingPathComponent("mappings"),
            ["fetch", server.url("files/tweet.json"), "--context", "$TweetModel"],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout.contains(#""identifier":"240859602684612608""#), "\(fetched.stdout)")

        let page = prefix.appendingPathComponent("share/man/man1/mappings.1")
        let manual = try ToolRunner.runProgram(
            URL(fileURLWithPath: "/usr/bin/env"), ["man", "-l", page.path],
            environment: ["MANPAGER": "cat", "MANWIDTH": "100"])
        #expect(manual.status == 0, "\(manual.stderr)")
        #expect(manual.stdout.contains("MAPPINGS(1)"), "\(manual.stdout)")
        #expect(manual.stdout.contains("Map a JSON payload with a context and print the result as JSON."))
        // The statuses every command keeps, not the generic "0 on success, >0 on error"; and
        // where the language is described.
        #expect(!manual.stdout.contains(">0 if an error occurs"), "\(manual.stdout)")
        #expect(manual.stdout.contains("Nothing done: the mappings, scripts, arguments or input"), "\(manual.stdout)")
        #expect(manual.stdout.contains("SEE ALSO") && manual.stdout.contains("docs/language.md"), "\(manual.stdout)")
        // The defaults `--help` shows are on the page too.
        #expect(
            manual.stdout.contains("Memory each Lua interpreter may hold, in MiB. (default: 64)"), "\(manual.stdout)")
        // Blank lines in the generated page would make groff warn on every reading.
        #expect(!manual.stderr.contains("warning"), "\(manual.stderr)")

        let completion = prefix.appendingPathComponent("share/bash-completion/completions/mappings")
        let bash = try ToolRunner.runProgram(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["bash", "-c", #"source "$1" && complete -p mappings"#, "bash", completion.path])
        #expect(bash.status == 0, "\(bash.stderr)")
        #expect(bash.stdout.hasSuffix(" mappings\n"), "\(bash.stdout)")
    }

    @Test("tools/install refuses a PREFIX it cannot write before building anything")
    func unwritablePrefix() throws {
        let install = try ToolRunner.runProgram(
            ToolRunner.packageRoot.appendingPathComponent("tools/install"), ["/proc/mappings"])
        #expect(install.status == 1)
        #expect(install.stdout == "")
        #expect(
            install.stderr.hasPrefix("tools/install: error: cannot install into /proc/mappings: /proc is not writable"))
    }

    @Test("tools/mappings runs where it is started: input and options relative to that folder")
    func toolFromElsewhere() throws {
        let expected = try ToolRunner.run(["map", "--context", "$TweetModel", "Examples/twitter/tweet.json"])
        let run = try ToolRunner.runProgram(
            ToolRunner.packageRoot.appendingPathComponent("tools/mappings"),
            [
                "map", "--context", "$TweetModel", "--mappings", "../contexts", "--scripts", "../scripts",
                "twitter/tweet.json",
            ],
            in: ToolRunner.packageRoot.appendingPathComponent("Examples"),
            environment: ["MAPPINGS_TOOL": ToolRunner.executable.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected.stdout)
        #expect(run.stdout.hasPrefix(#"{"identifier":"240859602684612608","#))
    }
}
