import Foundation
import MappingsStream

/// Writes the files of a project `mappings init` made, all or none: each into a temporary
/// folder beside them first (`DIR/.mappings-init-PID`), then renamed into place. A failure
/// before the renames leaves nothing; one during them puts back what was there.
///
/// A path that exists is refused without `--force`, and a symbolic link on the way to a file
/// (the file itself, or a folder under DIR) always: `init` writes its files, never through a
/// link to somewhere else.
///
/// ```text
/// error: ./contexts is a symbolic link (to /etc): init does not write through links: nothing written
/// ```
struct ProjectWriter {
    var directory: String
    var force: Bool

    /// Writes `files` (paths relative to `directory`, and their texts), or ends the command
    /// with exit 2 saying why, nothing written.
    func write(_ project: [(path: String, text: String)]) throws {
        try refuseLinks(project.map(\.path))
        let files = project.map { (path: (directory as NSString).appendingPathComponent($0.path), text: $0.text) }
        let existing = files.map(\.path).filter { Self.exists($0) }
        if !force, !existing.isEmpty {
            Terminal.error(
                "error: \(existing.joined(separator: ", ")) already exist\(existing.count == 1 ? "s" : ""): "
                    + "nothing written (--force overwrites, --dir writes elsewhere)")
            throw ToolFailure(status: .loadFailure)
        }
        let manager = FileManager.default
        var created: [String] = []
        let staging = (directory as NSString).appendingPathComponent(".mappings-init-\(getpid())")
        defer { try? manager.removeItem(atPath: staging) }
        do {
            try create(folder: directory, recording: &created)
            try manager.createDirectory(atPath: staging, withIntermediateDirectories: false)
            for (index, file) in files.enumerated() {
                try Data(file.text.utf8).write(to: URL(fileURLWithPath: Self.staged(index, in: staging)))
            }
            for file in files {
                try create(folder: (file.path as NSString).deletingLastPathComponent, recording: &created)
            }
        } catch {
            Self.remove(created)
            throw fail("cannot write the project under \"\(directory)\": \(Self.reason(error))")
        }
        // Each file in place, what it replaces kept aside until every one is.
        var placed: [(path: String, kept: String?)] = []
        for (index, file) in files.enumerated() {
            let kept = Self.exists(file.path) ? staging + "/kept-\(index)" : nil
            if let kept, rename(file.path, kept) != 0 {
                return try undo(placed, created, "cannot replace \"\(file.path)\": \(String(cString: strerror(errno)))")
            }
            if rename(Self.staged(index, in: staging), file.path) != 0 {
                let reason = String(cString: strerror(errno))
                if let kept { rename(kept, file.path) }
                return try undo(placed, created, "cannot write \"\(file.path)\": \(reason)")
            }
            placed.append((file.path, kept))
        }
    }

    /// Refuses a symbolic link at any path from `directory` down to each file (`paths` relative to it).
    private func refuseLinks(_ paths: [String]) throws {
        for path in paths {
            var step = directory
            for component in path.split(separator: "/") {
                step = (step as NSString).appendingPathComponent(String(component))
                if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: step) {
                    throw fail("\(step) is a symbolic link (to \(target)): init does not write through links")
                }
            }
        }
    }

    /// Creates `folder` and the folders above it that are missing, recording each one made.
    private func create(folder: String, recording created: inout [String]) throws {
        guard !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) else { return }
        try create(folder: (folder as NSString).deletingLastPathComponent, recording: &created)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        created.append(folder)
    }

    /// Puts back what `placed` replaced, removes the folders made, and fails with `reason`.
    private func undo(_ placed: [(path: String, kept: String?)], _ created: [String], _ reason: String) throws {
        for file in placed.reversed() {
            if let kept = file.kept { rename(kept, file.path) } else { unlink(file.path) }
        }
        Self.remove(created)
        throw fail(reason)
    }

    private func fail(_ reason: String) -> ToolFailure {
        Terminal.error("error: \(reason): nothing written")
        return ToolFailure(status: .loadFailure)
    }

    /// Whether something is at `path`, a dangling link too.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    private static func staged(_ index: Int, in staging: String) -> String { staging + "/file-\(index)" }

    /// Removes the folders `created` made, the deepest first, each only when empty.
    private static func remove(_ created: [String]) {
        for folder in created.reversed() { rmdir(folder) }
    }

    private static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let code = underlying?.domain == NSPOSIXErrorDomain ? underlying?.code : nil {
            return String(cString: strerror(Int32(code)))
        }
        return (error as NSError).localizedDescription
    }
}
