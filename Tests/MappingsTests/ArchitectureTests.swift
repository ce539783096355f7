import Foundation
import MappingsTestSupport
import Testing

/// The package's targets as the manifest declares them (`swift package dump-package`), and the
/// modules each target's Swift sources import.
struct PackageTargets {
    struct Target {
        var name: String
        var isTest: Bool
        /// Where its sources are, from the repository's root.
        var path: String
        /// The targets and products it depends on, by name.
        var declared: Set<String>
    }

    /// Modules that come with the toolchain: any target may import them without declaring them.
    static let toolchain: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "Glibc", "Musl", "Darwin",
        "Synchronization", "Testing", "XCTest", "_Concurrency", "CoreFoundation", "os", "Android", "Bionic",
    ]

    var targets: [Target] = []

    /// Reads the manifest of the package at `root` (evaluated in a scratch path of its own, so
    /// that it never waits for the lock of a build running meanwhile).
    init(root: URL) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mappings-dump-\(UUID())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--scratch-path", scratch.path, "dump-package"]
        process.currentDirectoryURL = root
        // The whole package, whatever mode the tests run in (these variables leave targets out).
        process.environment = ProcessInfo.processInfo.environment.filter {
            !["MAPPINGS_NO_MACROS", "MAPPINGS_PORTABLE", "MAPPINGS_ALLOCATION_SUITE"].contains($0.key)
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let package = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let targets = package["targets"] as? [[String: Any]]
        else { throw Failure("swift package dump-package did not describe the package") }
        for target in targets {
            guard let name = target["name"] as? String, let type = target["type"] as? String else { continue }
            var declared: Set<String> = []
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                // {"byName": [name, condition]}, {"target": [...]}, {"product": [name, package, ...]}
                for value in dependency.values {
                    if let parts = value as? [Any], let first = parts.first as? String { declared.insert(first) }
                }
            }
            let path = target["path"] as? String ?? (type == "test" ? "Tests/" : "Sources/") + name
            self.targets.append(Target(name: name, isTest: type == "test", path: path, declared: declared))
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The modules the Swift files under `folder` import (attributes, access levels and kinds
    /// of `import struct M.T` left out); lines inside comments and multi-line string literals
    /// (a manifest or a script a test writes) are not imports.
    static func imports(under folder: URL) throws -> [String: [String]] {
        var found: [String: [String]] = [:]
        let files =
            FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files {
            for module in imports(in: try String(contentsOf: file, encoding: .utf8)) {
                found[module, default: []].append(file.lastPathComponent)
            }
        }
        return found
    }

    static func imports(in text: String) -> [String] {
        var modules: [String] = []
        var inString = false
        var inComment = false
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if inComment {
                if trimmed.contains("*/") { inComment = false }
                continue
            }
            if trimmed.hasPrefix("//") { continue }
            // A multi-line string opens or closes on a line with an odd count of triple quotes.
            let quotes = line.components(separatedBy: "\"\"\"").count - 1
            defer { if quotes % 2 == 1 { inString.toggle() } }
            if inString { continue }
            if let open = trimmed.range(of: "/*"), !trimmed[open.upperBound...].contains("*/") {
                inComment = true
            }
            if let module = importedModule(trimmed) { modules.append(module) }
        }
        return modules
    }

    /// The module an import declaration names, or `nil` for any other line.
    static func importedModule(_ line: String) -> String? {
        var words = withoutAttributes(Substring(line)).split(separator: " ").map(String.init)
        if let first = words.first, ["public", "package", "internal", "private", "fileprivate"].contains(first) {
            words.removeFirst()
        }
        guard words.first == "import", words.count >= 2 else { return nil }
        words.removeFirst()
        if ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"].contains(words[0]) {
            guard words.count >= 2 else { return nil }
            words.removeFirst()
        }
        let module = words[0].split(separator: ".").first.map { String($0.prefix { $0 != ";" }) } ?? ""
        return module.first?.isLetter == true || module.first == "_" ? module : nil
    }

    /// The line after its leading attributes (`@testable`, `@_spi(Name)`, `@Test("…")`); a
    /// parenthesis that does not close on the line leaves nothing.
    static func withoutAttributes(_ line: Substring) -> Substring {
        var rest = line
        while rest.first == "@" {
            rest = rest.dropFirst().drop { $0.isLetter || $0.isNumber || $0 == "_" }
            if rest.first == "(" {
                var depth = 0
                var end: Substring.Index?
                for index in rest.indices {
                    if rest[index] == "(" { depth += 1 }
                    if rest[index] == ")" {
                        depth -= 1
                        if depth == 0 {
                            end = index
                            break
                        }
                    }
                }
                guard let end else { return "" }
                rest = rest[rest.index(after: end)...]
            }
            rest = rest.drop { $0 == " " }
        }
        return rest
    }

    /// docs/architecture.md's table of targets: each target's row, by name, with the names its
    /// "May import" column gives.
    static func rules(in markdown: String) -> [String: Set<String>] {
        var rules: [String: Set<String>] = [:]
        var inTable = false
        for line in markdown.components(separatedBy: "\n") {
            if line.hasPrefix("| Target | Job | May import |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else {
                inTable = false
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4, let name = codeSpans(cells[1]).first else { continue }
            rules[name] = Set(codeSpans(cells[3]))
        }
        return rules
    }

    /// The text of each `code span` in `cell`.
    static func codeSpans(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
}

@Suite("The architecture: what each target may import")
struct ArchitectureTests {
    static let root = Fixtures.root
    static let targets = Result { try PackageTargets(root: root) }

    @Test("every Swift target imports only what the manifest declares for it (or the toolchain's modules)")
    func importsAreDeclared() throws {
        for target in try Self.targets.get().targets {
            let imports = try PackageTargets.imports(under: Self.root.appendingPathComponent(target.path))
            for (module, files) in imports.sorted(by: { $0.key < $1.key })
            where !PackageTargets.toolchain.contains(module) && module != target.name {
                #expect(
                    target.declared.contains(module),
                    "\(target.name) imports \(module) (\(files.sorted().joined(separator: ", "))), which Package.swift does not declare for it"
                )
            }
        }
    }

    @Test("docs/architecture.md has a row for every target; each imports and declares only what its row allows")
    func layersHold() throws {
        let markdown = try String(
            contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let rules = PackageTargets.rules(in: markdown)
        let targets = try Self.targets.get().targets.filter { !$0.isTest }
        #expect(
            Set(rules.keys) == Set(targets.map(\.name)),
            "docs/architecture.md's targets differ from Package.swift's: \(Set(rules.keys).symmetricDifference(targets.map(\.name)).sorted())"
        )
        for target in targets {
            guard let allowed = rules[target.name] else { continue }
            for module in target.declared.sorted() where !allowed.contains(module) {
                Issue.record(
                    "\(target.name) depends on \(module), which its row in docs/architecture.md does not allow")
            }
            let imports = try PackageTargets.imports(under: Self.root.appendingPathComponent(target.path))
            for module in imports.keys.sorted()
            where !PackageTargets.toolchain.contains(module) && !allowed.contains(module) {
                Issue.record("\(target.name) imports \(module), which its row in docs/architecture.md does not allow")
            }
        }
    }

    @Test("the import reader skips comments and string literals, and reads attributes, access levels and kinds")
    func readsImports() {
        // Written line by line, so that this file's own lines never read as imports.
        let quotes = String(repeating: "\"", count: 3)
        let text = [
            "@testable import MappingsEngine", "public import Synchronization",
            "internal import struct CJSONIndex.cjson_index", "@preconcurrency import Dispatch",
            "// import Commented", "/*", "import Blocked", "*/", "let manifest = " + quotes,
            "    import PackageDescription", "    " + quotes, "@Test(\"an import is relative\")",
            "@_spi(Tools) import Last;", "// a comment with \(quotes) in it", "import Final",
        ].joined(separator: "\n")
        #expect(
            PackageTargets.imports(in: text) == [
                "MappingsEngine", "Synchronization", "CJSONIndex", "Dispatch", "Last", "Final",
            ])
    }
}
