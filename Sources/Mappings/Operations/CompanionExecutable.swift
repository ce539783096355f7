import Foundation

/// Programs installed beside the one running (`mappings-lua-worker`, `mappings-fetch`,
/// `mappings-server` beside `mappings`, or beside a host's program).
package enum CompanionExecutable {
    /// `name` beside this program, else the first on PATH; `nil` when neither is executable.
    package static func find(_ name: String) -> String? {
        if let own = ownExecutable {
            let beside = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// This program's path: Linux's /proc/self/exe, elsewhere the path it was started by.
    private static var ownExecutable: String? {
        #if os(Linux)
            return try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #else
            return CommandLine.arguments.first.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        #endif
    }
}
