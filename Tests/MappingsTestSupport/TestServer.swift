package import Foundation

/// `tools/test-server.py` on 127.0.0.1, serving a directory under `/files/`; stopped when released.
package final class TestServer: @unchecked Sendable {
    package let process = Process()
    package let port: Int

    /// Starts the server on a free port and waits until it listens.
    package init(root: URL = Fixtures.root.appendingPathComponent("Examples/twitter")) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Fixtures.root.appendingPathComponent("tools/test-server.py").path, root.path,
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
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    deinit {
        // SIGKILL: a test process may pass an ignored SIGTERM on to its children.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

extension TestServer {
    /// A server over a directory of payloads: the Twitter examples, wrapped, broken and not JSON.
    package static func twitterPayloads() throws -> TestServer {
        let twitter = Fixtures.root.appendingPathComponent("Examples/twitter")
        let timeline = try String(contentsOf: twitter.appendingPathComponent("timeline.json"), encoding: .utf8)
        let root = try Fixtures.directory(with: [
            "tweet.json": try String(contentsOf: twitter.appendingPathComponent("tweet.json"), encoding: .utf8),
            "broken-tweet.json": try String(
                contentsOf: twitter.appendingPathComponent("broken-tweet.json"), encoding: .utf8),
            "timeline.json": timeline,
            "search.json": #"{ "meta": { "count": 2 }, "data": { "statuses": \#(timeline) } }"#,
            "user.json": #"{ "name": "Ann", "profile_image_url": "https://example.com/ann.png" }"#,
            "invalid.json": #"{ "name": "Ann", }"#,
        ])
        return try TestServer(root: root)
    }
}
