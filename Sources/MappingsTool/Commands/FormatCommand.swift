import ArgumentParser
import Foundation
import Mappings
import MappingsStream

/// `mappings fmt`: one layout for `.mappings` files.
struct FormatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fmt",
        abstract: "Lay out .mappings files one way: four spaces a level, comments kept.",
        discussion: """
            Rewrites each file (a directory: its *.mappings files) in the one layout: one member a \
            line at the top and in each context, a deeper object or array with no comment on one line \
            when it fits in 100 columns, strings and numbers as written, every comment where it stands (between a key, its colon, \
            its value and its comma too), no trailing commas. A file that is not valid UTF-8 is left as it is. Formatting a formatted file changes nothing. With --check, nothing is \
            written: the files that would change are listed on stdout.

            Exit status: 0 every file laid out (with --check: none would change); 1 with --check, \
            some would; 2 a file could not be read or does not parse ('mappings check' says why).

            Examples:
              mappings fmt
              mappings fmt --check contexts Examples
            """
    )

    @Flag(help: "Write nothing: list the files that would change, and exit 1 when there are some.")
    var check = false

    @Argument(
        help: ArgumentHelp(".mappings files or directories (default: contexts).", valueName: "path"),
        completion: .file(extensions: ["mappings"]))
    var paths: [String] = []

    func run() throws {
        var failed = false
        var differing: [String] = []
        for file in Self.files(in: paths.isEmpty ? ["contexts"] : paths) {
            guard let data = FileManager.default.contents(atPath: file) else {
                Terminal.error("error: cannot read \"\(file)\"")
                failed = true
                continue
            }
            let bytes = [UInt8](data)
            if let place = MappingsFormatter.invalidUTF8(in: bytes) {
                // Laid out, the bytes would change (a replacement character in their place).
                Terminal.error(
                    "error: \(file):\(place.line):\(place.column): the file is not valid UTF-8: not laid out, left as it is"
                )
                failed = true
                continue
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let formatted = MappingsFormatter.format(bytes) else {
                Terminal.error("error: \(file) does not parse; 'mappings check --mappings \(file)' says where")
                failed = true
                continue
            }
            guard formatted != text else { continue }
            differing.append(file)
            if check { continue }
            do {
                try OutputFile.write(Array(formatted.utf8), to: file)
            } catch {
                throw OutputFile.unwritable(error, path: file, what: "the formatted file")
            }
        }
        for file in differing { Terminal.output(check ? file : "formatted \(file)") }
        if failed { throw ToolFailure(status: .loadFailure) }
        if check, !differing.isEmpty { throw ToolFailure(status: .issues) }
    }

    /// The `.mappings` files `paths` name: files as given, directories' files and folders below, in name order.
    static func files(in paths: [String]) -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let found = FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? []
            files += found.filter { $0.hasSuffix(".mappings") }.sorted().map {
                path.hasSuffix("/") ? path + $0 : path + "/" + $0
            }
        }
        return files
    }
}
