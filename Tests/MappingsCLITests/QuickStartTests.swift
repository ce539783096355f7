import Foundation
import MappingsTestSupport
import Testing

/// The README's quick start on a fresh clone, as a new user runs it: `./tools/mappings` builds
/// the release tool and maps the walkthrough's tweet, then `tools/install` puts that release
/// build under a temporary prefix, where the installed tool, its manual page and its bash
/// completion work.
///
/// A release build from nothing takes minutes, so this runs in CI (`CI` set, as `.ci/run` has
/// it) or when asked (`MAPPINGS_SLOW_TESTS=1`); elsewhere it is reported as skipped.
@Suite(
    "The README's quick start on a fresh clone",
    .enabled(
        if: ProcessInfo.processInfo.environment["CI"] != nil
            || ProcessInfo.processInfo.environment["MAPPINGS_SLOW_TESTS"] == "1",
        "a release build from a fresh clone: set MAPPINGS_SLOW_TESTS=1 (CI sets CI)"))
struct QuickStartTests {
    @Test("./tools/mappings on a fresh clone prints the README's TweetModel; tools/install installs that build")
    func freshClone() throws {
        let folder = try ToolRunner.directory(with: [:])
        defer { try? FileManager.default.removeItem(at: folder) }
        let clone = folder.appendingPathComponent("mappings")
        let cloned = try ToolRunner.runProgram(
            URL(fileURLWithPath: "/usr/bin/env"), ["git", "clone", "-q", ToolRunner.packageRoot.path, clone.path])
        try #require(cloned.status == 0, "\(cloned.stderr)")

        let readme = try String(contentsOf: ToolRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let command = "$ ./tools/mappings map --context '$TweetModel' Examples/twitter/tweet.json\n"
        let start = try #require(readme.range(of: command), "the README's quick start command")
        let expected = String(readme[start.upperBound...].prefix(while: { $0 != "\n" })) + "\n"

        let quickStart = try ToolRunner.runProgram(
            clone.appendingPathComponent("tools/mappings"),
            ["map", "--context", "$TweetModel", "Examples/twitter/tweet.json"], in: clone)
        #expect(quickStart.status == 0, "\(quickStart.stderr)")
        #expect(quickStart.stdout == expected)

        let prefix = folder.appendingPathComponent("prefix")
        let install = try ToolRunner.runProgram(clone.appendingPathComponent("tools/install"), [prefix.path], in: clone)
        try #require(install.status == 0, "\(install.stderr)")
        #expect(install.stdout == InstallTests.installed.map { "installed   \(prefix.path)/\($0)\n" }.joined())
        let installed = prefix.appendingPathComponent("bin/mappings")
        let map = try ToolRunner.runProgram(
            installed, ["map", "--context", "$TweetModel", "Examples/twitter/tweet.json"])
        #expect(map.stdout == expected, "\(map.stderr)")
        let manual = try ToolRunner.runProgram(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["man", "-l", prefix.appendingPathComponent("share/man/man1/mappings.1").path],
            environment: ["MANPAGER": "cat"])
        #expect(manual.status == 0 && manual.stdout.contains("MAPPINGS(1)"), "\(manual.stderr)")
        let bash = try ToolRunner.runProgram(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "bash", "-c", #"source "$1" && complete -p mappings"#, "bash",
                prefix.appendingPathComponent("share/bash-completion/completions/mappings").path,
            ])
        #expect(bash.status == 0 && bash.stdout.hasSuffix(" mappings\n"), "\(bash.stderr)")
    }
}
