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
