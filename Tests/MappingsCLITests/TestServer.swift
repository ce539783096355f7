import Foundation

/// `tools/test-server.py` on 127.0.0.1, serving a directory under `/files/`; stopped when released.
final class TestServer: @unchecked Sendable {
    let process = Process()
    let port: Int

    /// Starts the server on a free port and waits until it listens.
    init(root: URL = ToolRunner.packageRoot.appendingPathComponent("Examples/twitter")) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", ToolRunner.packageRoot.appendingPathComponent("tools/test-server.py").path, root.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("port "), let port = Int(text.dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(
                .fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the test server said \"\(text)\""])
        }
        self.port = port
    }

    /// `http://127.0.0.1:PORT/` + `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    deinit {
        // SIGKILL: a test process may pass an ignored SIGTERM on to its children.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
