import Foundation
import MappingsTestSupport
import Testing

/// The README's quick start on a fresh clone, as a new user runs it: `./tools/mappings` builds
/// the tool (debug, as `swift run` does) — what a first `map` runs, and nothing else — and maps
/// the walkthrough's tweet. (`tools/install`, which builds every program, is `InstallTests`', on the build the
/// tests run from.)
///
/// A build from nothing takes a minute or more, so this runs in CI (`CI` set, as `.ci/run` has
/// it) or when asked (`MAPPINGS_SLOW_TESTS=1`); elsewhere it is reported as skipped.
@Suite(
    "The README's quick start on a fresh clone",
    .enabled(
        if: ProcessInfo.processInfo.environment["CI"] != nil
            || ProcessInfo.processInfo.environment["MAPPINGS_SLOW_TESTS"] == "1",
        "a build from a fresh clone: set MAPPINGS_SLOW_TESTS=1 (CI sets CI)"))
struct QuickStartTests {
    @Test("./tools/mappings on a fresh clone builds what map runs and prints the README's TweetModel")
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
        // One line about the build, not SwiftPM's fetching and compiling.
        #expect(
            quickStart.stderr
                == "tools/mappings: building the debug build of mappings (a minute or more, the first time)\n")

        // The first `map` builds what it runs and nothing else: not the HTTP servers
        // (`mappings-server`, SwiftNIO), the HTTP client (`mappings-fetch`), the Lua worker
        // process (`--lua-isolation process` builds it) or the optimized build.
        let debug = clone.appendingPathComponent(".build/debug")
        #expect(FileManager.default.isExecutableFile(atPath: debug.appendingPathComponent("mappings").path))
        for program in ["mappings-server", "mappings-fetch", "mappings-lua-worker"] {
            #expect(!FileManager.default.fileExists(atPath: debug.appendingPathComponent(program).path))
        }
        #expect(
            !FileManager.default.fileExists(atPath: debug.appendingPathComponent("Modules/NIOCore.swiftmodule").path),
            "the first map built SwiftNIO")
        #expect(!FileManager.default.fileExists(atPath: clone.appendingPathComponent(".build/release").path))

        // A command that asks for the worker process builds it, and runs.
        let isolated = try ToolRunner.runProgram(
            clone.appendingPathComponent("tools/mappings"),
            ["map", "--lua-isolation", "process", "--context", "$TweetModel", "Examples/twitter/tweet.json"], in: clone)
        #expect(isolated.status == 0, "\(isolated.stderr)")
        #expect(isolated.stdout == expected)
        #expect(FileManager.default.isExecutableFile(atPath: debug.appendingPathComponent("mappings-lua-worker").path))
    }
}
