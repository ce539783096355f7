import Foundation
import MappingsTestSupport

/// Runs a documentation block's commands in one bash, as a reader would type them, in a scratch
/// copy of the repository's root where `mappings` and `./tools/mappings` are the built tool.
enum DocShell {
    /// What one command printed (stdout and stderr together) and its exit status.
    struct Outcome {
        var output: String
        var status: Int32
    }

    /// Longer than any block should take; a block still running then is stopped and fails.
    static let timeout: TimeInterval = 120

    /// Separates the commands' outputs: bash prints it, with the status, after each command.
    private static let separator = "\u{1E}"

    /// Runs `block`'s commands one after the other in a single bash (so `cd`, variables and
    /// `echo $?` carry over) and returns each command's outcome, in order.
    static func run(_ block: DocBlock) throws -> [Outcome] {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var script = ""
        for command in block.commands where !command.text.isEmpty {
            script += command.text + "\n"
            script += "__doctest=$?; printf '\(separator)%d\(separator)' \"$__doctest\"; (exit \"$__doctest\")\n"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["--noprofile", "--norc", "-c", script]
        process.currentDirectoryURL = scratch.root
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = scratch.bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["COLUMNS"] = "80"
        environment["NO_COLOR"] = "1"
        environment["TERM"] = "dumb"
        process.environment = environment
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let timer = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer.cancel()
        return outcomes(String(decoding: data, as: UTF8.self))
    }

    /// Splits what bash printed at the separators: `output␞status␞output␞status␞…`.
    private static func outcomes(_ text: String) -> [Outcome] {
        let parts = text.components(separatedBy: separator)
        return stride(from: 0, to: parts.count - 1, by: 2).map {
            Outcome(output: parts[$0], status: Int32(parts[$0 + 1]) ?? -1)
        }
    }

    /// A temporary directory holding `repo/`, a copy of the repository root's folders whose
    /// entries link to the repository's (so that what a command writes at the top, or in a
    /// top-level folder, stays out of the repository; and a `--scripts DIR` is a real folder,
    /// which the Lua loader needs), with `repo/tools/mappings` running the built tool, and
    /// `bin/mappings` for the PATH.
    private struct Scratch {
        let directory: URL
        var root: URL { directory.appendingPathComponent("repo") }
        var bin: URL { directory.appendingPathComponent("bin") }

        init() throws {
            let files = FileManager.default
            directory = files.temporaryDirectory.appendingPathComponent("mappings-doctest-\(UUID().uuidString)")
            try files.createDirectory(at: directory.appendingPathComponent("bin"), withIntermediateDirectories: true)
            let packageRoot = ToolRunner.packageRoot
            for name in try files.contentsOfDirectory(atPath: packageRoot.path)
            where name != ".git" && !name.hasPrefix(".build") {
                let source = packageRoot.appendingPathComponent(name)
                let copy = directory.appendingPathComponent("repo/\(name)")
                var isDirectory: ObjCBool = false
                guard files.fileExists(atPath: source.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                    try files.createSymbolicLink(at: copy, withDestinationURL: source)
                    continue
                }
                try files.createDirectory(at: copy, withIntermediateDirectories: true)
                for entry in try files.contentsOfDirectory(atPath: source.path)
                where copy.lastPathComponent != "tools" || entry != "mappings" {
                    try files.createSymbolicLink(
                        at: copy.appendingPathComponent(entry), withDestinationURL: source.appendingPathComponent(entry)
                    )
                }
            }
            // Links to the built tool, which finds mappings-lua-worker beside its own path
            // (/proc/self/exe). Not scripts written here: a script being written while another
            // test starts a process can be held open for writing by that child, and running it
            // then fails ("Text file busy").
            for path in ["repo/tools/mappings", "bin/mappings"] {
                try files.createSymbolicLink(
                    at: directory.appendingPathComponent(path), withDestinationURL: ToolRunner.executable)
            }
        }

        func remove() {
            try? FileManager.default.removeItem(at: directory)
        }
    }
}
