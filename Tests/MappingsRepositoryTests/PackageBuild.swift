import Foundation
import MappingsTestSupport
import Synchronization

/// Builds a package other than this one with `swift build` — the Swift host examples, the
/// benchmarks, a throwaway host — and runs commands for the tests that need one.
///
/// Each package builds in its own scratch path under the root's `.build/`, so that the next
/// run of the tests is incremental, and one build runs at a time for the whole test process
/// (each uses every core). A package is built once per test process. (Two packages sharing a
/// scratch path race: a build of one recreates the `debug` link while a test runs the other's
/// programs.)
enum PackageBuild {
    /// The examples' package, `Examples/SwiftHost`, as its README says to build it.
    static func swiftHostExamples() throws -> URL {
        try binDirectory(
            of: ToolRunner.packageRoot.appendingPathComponent("Examples/SwiftHost"),
            scratch: scratch("swifthost-examples"))
    }

    /// The benchmarks' package, `Benchmarks`, in debug (the smoke test's build): the programs
    /// B1 to B8 run, not B9's `swift-host-benchmark`, whose `@MappedModel` types would build
    /// swift-syntax once more (B9 is measured in release, by hand: docs/swift.md).
    static func benchmarks() throws -> URL {
        try binDirectory(
            of: ToolRunner.packageRoot.appendingPathComponent("Benchmarks"), scratch: scratch("benchmarks"),
            products: ["lua-call-benchmark", "swift-peers-benchmark"])
    }

    /// A folder of the root's `.build/` for `name`'s build.
    static func scratch(_ name: String) -> URL {
        ToolRunner.packageRoot.appendingPathComponent(".build/\(name)")
    }

    private static let built = Mutex<[String: URL]>([:])
    private static let oneAtATime = Mutex(())

    /// Runs `swift build arguments…` in the root, one such build at a time in this process,
    /// without debug information (`flags`): these builds are run, never debugged, and DWARF is
    /// a good part of a debug build's time (swift-syntax's most of all).
    static func swiftBuild(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try oneAtATime.withLock { _ in try run(["swift", "build"] + arguments + flags) }
    }

    /// What every build of another package here adds (tools/test builds the examples' tests in
    /// their scratch path with the same, so that it reuses what the tests built).
    static let flags = ["-Xswiftc", "-gnone"]

    /// Builds every product of the package at `package` (or those named) in `scratch` (once per process) and
    /// returns the folder of its executables; a failed build throws with its output.
    static func binDirectory(of package: URL, scratch: URL, products: [String]? = nil) throws -> URL {
        try built.withLock { built in
            if let directory = built[package.path] { return directory }
            // Every product, or each of `products` in turn (a build of one builds only what it needs).
            func build() throws -> (status: Int32, output: String) {
                let base = ["--package-path", package.path, "--scratch-path", scratch.path]
                guard let products else { return try swiftBuild(base) }
                var last: (status: Int32, output: String) = (0, "")
                for product in products {
                    last = try swiftBuild(base + ["--product", product])
                    if last.status != 0 { return last }
                }
                return last
            }
            var result = try build()
            if result.status != 0 {
                // The scratch path may hold a plan of the root package (a path dependency) made
                // before the root's files were added, moved or removed, which SwiftPM keeps:
                // plan again from the sources as they are, once.
                for stale in ["debug.yaml", "build.db", "x86_64-unknown-linux-gnu/debug/description.json"] {
                    try? FileManager.default.removeItem(at: scratch.appendingPathComponent(stale))
                }
                result = try build()
            }
            guard result.status == 0 else {
                throw Failure("swift build of \(package.path) failed:\n\(result.output)")
            }
            let directory = scratch.appendingPathComponent("debug")
            built[package.path] = directory
            return directory
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs `arguments` (looked up on the PATH) in `directory`, and returns its exit status and
    /// what it printed, stdout and stderr together.
    static func run(
        _ arguments: [String], in directory: URL = ToolRunner.packageRoot, environment: [String: String] = [:]
    ) throws -> (status: Int32, output: String) {
        let result = try ToolRunner.runProgram(
            URL(fileURLWithPath: "/usr/bin/env"), arguments, in: directory, environment: environment)
        return (result.status, result.stdout + result.stderr)
    }
}
