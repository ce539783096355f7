import Foundation
import MappingsJSON
import MappingsModel

/// Where `.mappings` files are read from: the disk, or texts a host holds in memory.
public struct FileSource: Sendable {
    enum Storage: Sendable {
        case disk
        case memory([String: String])
        /// The disk, with some files' texts replaced (an editor's unsaved buffers), by normalized path.
        case overlay([String: String])
    }

    let storage: Storage

    /// Files on disk, paths relative to the current directory.
    public static let disk = FileSource(storage: .disk)

    /// Files held in memory, by path (`"contexts/tweets.mappings"`); directories are implied by the paths.
    public static func memory(_ files: [String: String]) -> FileSource {
        var normalized: [String: String] = [:]
        for (path, text) in files { normalized[Path.normalize(path)] = text }
        return FileSource(storage: .memory(normalized))
    }

    /// Files on disk, except those in `files` (by path, as the roots name them), which are read
    /// from memory: what an editor shows, saved or not.
    package static func disk(overlaying files: [String: String]) -> FileSource {
        var normalized: [String: String] = [:]
        for (path, text) in files { normalized[Path.normalize(path)] = text }
        return FileSource(storage: .overlay(normalized))
    }

    enum Entry { case file, directory, missing }

    /// The help for a path to load that is not there: what a path names and, on the disk, where
    /// a relative one is read from (the tool's `--mappings` and a host's `Catalog.load` alike).
    func missingHelp(for path: String) -> String {
        let names = "name a .mappings file or a directory of them"
        switch storage {
        case .disk, .overlay:
            if path.hasPrefix("/") { return names }
            return "\(names); a relative path is read from the working directory, "
                + FileManager.default.currentDirectoryPath
        case .memory(let files):
            guard !files.isEmpty else { return "\(names): no file is held in memory" }
            let held = files.keys.sorted().prefix(3).map { "\"\($0)\"" }.joined(separator: ", ")
            return
                "name one of the files held in memory (\(held)\(files.count > 3 ? ", …" : "")) or a directory of them"
        }
    }

    func entry(at path: String) -> Entry {
        switch storage {
        case .disk:
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .missing }
            return isDirectory.boolValue ? .directory : .file
        case .overlay(let files):
            if files[Path.normalize(path)] != nil { return .file }
            return FileSource.disk.entry(at: path)
        case .memory(let files):
            let path = Path.normalize(path)
            if files[path] != nil { return .file }
            let prefix = path == "." ? "" : path + "/"
            return files.keys.contains(where: { $0.hasPrefix(prefix) }) ? .directory : .missing
        }
    }

    /// The `*.mappings` files directly inside `directory`, sorted by name.
    func mappingsFiles(in directory: String) throws -> [String] {
        let names: [String]
        switch storage {
        case .disk:
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        case .overlay(let files):
            let prefix = Path.normalize(directory) + "/"
            let unsaved = files.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
                .filter { !$0.contains("/") }
            let saved = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            names = Array(Set(saved + unsaved))
        case .memory(let files):
            let directory = Path.normalize(directory)
            let prefix = directory == "." ? "" : directory + "/"
            names = files.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
                .filter { !$0.contains("/") }
        }
        return names.filter { $0.hasSuffix(".mappings") }.sorted().map { Path.join(directory, $0) }
    }

    /// The bytes of a file.
    func read(_ path: String) throws -> [UInt8] {
        switch storage {
        case .disk:
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        case .overlay(let files):
            if let text = files[Path.normalize(path)] { return Array(text.utf8) }
            return try FileSource.disk.read(path)
        case .memory(let files):
            guard let text = files[Path.normalize(path)] else { throw CocoaError(.fileReadNoSuchFile) }
            return Array(text.utf8)
        }
    }

    /// A key that is the same for every spelling of the same file (symbolic links resolved on disk).
    func identity(of path: String) -> String {
        switch storage {
        case .disk, .overlay: URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        case .memory: Path.normalize(path)
        }
    }
}

/// Lexical path handling for the paths users write (no file system access).
package enum Path {
    /// `a/./b/../c` → `a/c`; keeps leading `..` of relative paths; `""` → `.`.
    static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast(); continue }
            if part == "..", absolute { continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    package static func join(_ directory: String, _ name: String) -> String {
        if name.hasPrefix("/") { return normalize(name) }
        return normalize(directory == "." ? name : directory + "/" + name)
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func hasExtension(_ path: String) -> Bool {
        let name = path.split(separator: "/").last ?? ""
        return name.dropFirst().contains(".")
    }
}
