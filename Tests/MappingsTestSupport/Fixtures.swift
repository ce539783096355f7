package import Foundation
package import Mappings

/// The repository's shipped files that tests read: its root, contexts, scripts and example payloads.
package enum Fixtures {
    /// The package's root directory.
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The shipped `contexts/` folder.
    package static let contexts = root.appendingPathComponent("contexts").path
    /// The shipped `scripts/` folder.
    package static let scripts = root.appendingPathComponent("scripts").path

    /// An example payload of `Examples/twitter/`, parsed.
    package static func twitterPayload(_ name: String) throws -> JSONValue {
        let data = try Data(contentsOf: root.appendingPathComponent("Examples/twitter/\(name)"))
        return try JSONValue(parsing: [UInt8](data))
    }

    /// Records of a benchmark shape (`tweet`, `small`, `wide`, `large`), one JSON text each,
    /// from the benchmarks' own seeded generator (`Benchmarks/generate.py`).
    package static func benchmarkRecords(shape: String, seed: Int, sizeMB: Double = 0.25) throws -> [[UInt8]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", root.appendingPathComponent("Benchmarks/generate.py").path, "--shape", shape,
            "--size-mb", String(sizeMB), "--seed", String(seed),
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(
                .fileReadUnknown,
                userInfo: [NSLocalizedDescriptionKey: "generate.py exited with \(process.terminationStatus)"])
        }
        return data.split(separator: UInt8(ascii: "\n")).map { Array($0) }
    }

    /// A new temporary directory holding `files` (relative path → text).
    package static func directory(with files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mappings-tests-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }
}
