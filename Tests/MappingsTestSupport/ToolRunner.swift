package import Foundation

/// Runs the built `mappings` tool as a process and captures what it prints.
package struct ToolRunner {
    package struct Result {
        package var status: Int32
        package var stdout: String
        package var stderr: String
        /// With `runProgram(…, binaryStdout: true)`: stdout's bytes as they came.
        package var stdoutBytes: [UInt8] = []

        package init(status: Int32, stdout: String, stderr: String, stdoutBytes: [UInt8] = []) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
            self.stdoutBytes = stdoutBytes
        }
    }

    /// The package's root directory.
    package static let packageRoot = Fixtures.root

    /// The built tool: beside the test bundle, where SwiftPM puts every product of the build.
    package static let executable = product("mappings")

    /// A built executable product of this package by name.
    package static func product(_ name: String) -> URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for directory in [
            beside, beside.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug"),
        ] {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return packageRoot.appendingPathComponent(".build/debug/\(name)")
    }

    /// Runs `mappings arguments…` (or another `executable`) in `directory` (the package root by
    /// default) with `input` on stdin.
    package static func run(
        _ arguments: [String], in directory: URL = packageRoot, input: String = "", executable: URL = executable
    ) throws -> Result {
        let (process, stdin, stdout, stderr) = try start(arguments, in: directory, executable: executable)
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    /// Runs `executable arguments…` in `directory` (the package root by default), with
    /// `environment` over the tests' own, and returns what it printed on each stream; the
    /// streams go through files, so that a long build log cannot fill a pipe.
    package static func runProgram(
        _ executable: URL, _ arguments: [String], in directory: URL = packageRoot,
        environment: [String: String] = [:], binaryStdout: Bool = false
    ) throws -> ToolRunner.Result {
        let folder = try Self.directory(with: ["stdout": "", "stderr": ""])
        defer { try? FileManager.default.removeItem(at: folder) }
        let stdout = try FileHandle(forWritingTo: folder.appendingPathComponent("stdout"))
        let stderr = try FileHandle(forWritingTo: folder.appendingPathComponent("stderr"))
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        process.waitUntilExit()
        try stdout.close()
        try stderr.close()
        let out = try Data(contentsOf: folder.appendingPathComponent("stdout"))
        return Result(
            status: process.terminationStatus,
            stdout: binaryStdout ? "" : String(decoding: out, as: UTF8.self),
            stderr: try String(contentsOf: folder.appendingPathComponent("stderr"), encoding: .utf8),
            stdoutBytes: binaryStdout ? Array(out) : [])
    }

    /// Starts `mappings arguments…` in `directory` and returns it with its three pipes, for a
    /// test that talks to the tool while it runs.
    package static func start(_ arguments: [String], in directory: URL, executable: URL = executable) throws -> (
        process: Process, stdin: Pipe, stdout: Pipe, stderr: Pipe
    ) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return (process, stdin, stdout, stderr)
    }

    /// A fresh temporary directory holding `files` (paths relative to it).
    package static func directory(with files: [String: String]) throws -> URL {
        try Fixtures.directory(with: files)
    }
}

/// Talks to a running tool line by line: sends a line on its stdin, returns the next line of
/// its stdout (waiting up to 10 seconds).
package final class LineExchange {
    private let stdin: Pipe
    private let stdout: Pipe
    private var pending = ""

    package init(stdin: Pipe, stdout: Pipe) {
        self.stdin = stdin
        self.stdout = stdout
    }

    package func send(_ line: String) -> String {
        stdin.fileHandleForWriting.write(Data((line + "\n").utf8))
        let deadline = Date().addingTimeInterval(10)
        while !pending.contains("\n"), Date() < deadline {
            pending += String(decoding: stdout.fileHandleForReading.availableData, as: UTF8.self)
        }
        let answer = pending.prefix { $0 != "\n" }
        pending = String(pending.dropFirst(answer.count + 1))
        return String(answer)
    }
}
