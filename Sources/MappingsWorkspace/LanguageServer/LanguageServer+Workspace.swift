import Foundation
import Mappings
import MappingsJSON
import MappingsLua

/// The workspace's files and their checks.
extension LanguageServer {
    /// The scripts directory (absolute).
    var scriptsDirectory: String { absolute(configuration.scripts ?? "scripts") }

    /// The roots the checks load: the `--mappings` paths, or the workspace's `contexts` when it has one.
    var mappingsRoots: [String] {
        if !configuration.mappings.isEmpty { return configuration.mappings.map(absolute) }
        let contexts = absolute("contexts")
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: contexts, isDirectory: &isDirectory) && isDirectory.boolValue
            ? [contexts] : []
    }

    /// The `.mappings` files a root names: itself, or a directory's `*.mappings` (open ones included).
    func files(of root: String) -> [String] {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory)
        guard exists && isDirectory.boolValue else { return exists || documents[root] != nil ? [root] : [] }
        let saved = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .map { (root as NSString).appendingPathComponent($0) }
        let unsaved = documents.keys.filter { ($0 as NSString).deletingLastPathComponent == root }
        return Set(saved + unsaved).filter { $0.hasSuffix(".mappings") }.sorted()
    }

    /// `files` and every file they import, directly or not, in the order reached.
    func closure(of files: [String]) -> [String] {
        var reached: [String] = []
        var seen = Set<String>()
        var queue = files
        while !queue.isEmpty {
            let file = queue.removeFirst()
            guard seen.insert(file).inserted else { continue }
            reached.append(file)
            guard let outline = outline(of: file) else { continue }
            for occurrence in outline.occurrences where occurrence.kind == .file {
                queue.append(importedPath(occurrence.name, from: file))
            }
        }
        return reached
    }

    /// The `.mappings` files requests look through: the roots', the open ones, and their imports.
    var workspaceFiles: [String] {
        closure(of: mappingsRoots.flatMap(files(of:)) + documents.keys.filter { $0.hasSuffix(".mappings") }.sorted())
    }

    /// The file an `@import` names, as the loader resolves it.
    func importedPath(_ name: String, from file: String) -> String {
        let directory = (file as NSString).deletingLastPathComponent
        var path = name.hasPrefix("/") ? name : (directory as NSString).appendingPathComponent(name)
        let last = (path as NSString).lastPathComponent
        if !last.dropFirst().contains(".") { path += ".mappings" }
        return (path as NSString).standardizingPath
    }

    /// The outline of a `.mappings` file, as the editor shows it; `nil` when it cannot be read.
    func outline(of path: String) -> SourceOutline? {
        if let document = documents[path] {
            if let cached = documentOutlines[path], cached.version == document.version { return cached.outline }
            let outline = SourceOutline(text: document.text, file: path)
            documentOutlines[path] = (document.version, outline)
            if outline.parsed { lastParsed[path] = outline }
            return outline
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let date = attributes[.modificationDate] as? Date
        else { return nil }
        if let cached = diskOutlines[path], cached.date == date { return cached.outline }
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let outline = SourceOutline(text: String(decoding: data, as: UTF8.self), file: path)
        diskOutlines[path] = (date, outline)
        return outline
    }

    /// The outline to navigate `path` with: the current one, or while the text does not parse, the last that did.
    func navigationOutline(of path: String) -> SourceOutline? {
        guard let outline = outline(of: path) else { return nil }
        return outline.parsed ? outline : lastParsed[path] ?? outline
    }

    /// The files with the editor's unsaved texts over them.
    func unsaved() -> UnsavedTexts {
        UnsavedTexts(
            scriptsDirectory: scriptsDirectory, traits: configuration.traits, limits: configuration.limits,
            texts: documents.mapValues(\.text))
    }

    /// The scripts, with the editor's unsaved texts.
    func scripts() -> LuaScripts {
        unsaved().scripts()
    }

    // MARK: Diagnostics

    /// Checks the workspace as `mappings check` does and publishes every file's diagnostics.
    func publishDiagnostics() {
        let unsaved = unsaved()
        let scripts = unsaved.scripts()
        var found: [(diagnostic: Diagnostic, severity: Int)] = []
        var loose: [String] = []
        func check(_ roots: [String]) {
            do {
                let catalog = try unsaved.load(roots, scripts: scripts)
                found += catalog.warnings.map { ($0, 2) }
                found += testFailures(of: catalog).map { ($0, 1) }
            } catch {
                found += error.diagnostics.map { ($0, 1) }
            }
        }
        let roots = mappingsRoots
        var covered = Set<String>()
        if !roots.isEmpty {
            check(roots)
            covered = Set(closure(of: roots.flatMap(files(of:))))
        }
        for path in documents.keys.sorted() where path.hasSuffix(".mappings") && !covered.contains(path) {
            check([path])
            covered.formUnion(closure(of: [path]))
        }
        let prefix = scriptsDirectory.hasSuffix("/") ? scriptsDirectory : scriptsDirectory + "/"
        for path in documents.keys.sorted() where path.hasSuffix(".lua") && path.hasPrefix(prefix) {
            let module = String(path.dropFirst(prefix.count).dropLast(4)).replacingOccurrences(of: "/", with: ".")
            if let failure = scripts.loadFailure(of: module) { found.append((failure, 1)) }
        }

        var byFile: [String: [JSONValue]] = [:]
        var seen = Set<String>()
        for (diagnostic, severity) in found {
            guard let location = diagnostic.location else {
                loose.append(diagnostic.message)
                continue
            }
            let file = absolute(location.file)
            guard seen.insert("\(file):\(location.line):\(location.column):\(diagnostic.message)").inserted else {
                continue
            }
            byFile[file, default: []].append(lspDiagnostic(diagnostic, severity: severity))
        }
        for message in loose {
            connection.send([
                "jsonrpc": "2.0", "method": "window/logMessage",
                "params": ["type": 1, "message": .string("mappings: " + message)],
            ])
        }
        for file in published.subtracting(byFile.keys).sorted() {
            send(diagnostics: [], for: file)
        }
        for (file, diagnostics) in byFile.sorted(by: { $0.key < $1.key }) {
            send(diagnostics: diagnostics, for: file)
        }
        published = Set(byFile.keys)
    }

    private func send(diagnostics: [JSONValue], for file: String) {
        var params: [(key: String, value: JSONValue)] = [("uri", uri(of: file)), ("diagnostics", .array(diagnostics))]
        if let version = documents[file]?.version { params.append(("version", .integer(Int64(version)))) }
        connection.send([
            "jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": .object(JSONObject(params)),
        ])
    }

    /// A compiler diagnostic in the protocol's form: the message with its help line, the notes
    /// that point somewhere as related information.
    /// What came from the file is shown with its control and invisible characters escaped, as
    /// the tool prints it.
    func lspDiagnostic(_ diagnostic: Diagnostic, severity: Int) -> JSONValue {
        let printable = DiagnosticRenderer.printable
        var message = printable(diagnostic.message)
        var related: [JSONValue] = []
        for note in diagnostic.notes {
            if let location = note.location {
                related.append([
                    "location": ["uri": uri(of: location.file), "range": positions(of: location.file).range(location)],
                    "message": .string(printable(note.message)),
                ])
            } else {
                message += "\nnote: " + printable(note.message)
            }
        }
        if let help = diagnostic.help { message += "\nhelp: " + printable(help) }
        let location = diagnostic.location ?? SourceLocation(file: "", line: 1, column: 1)
        return .members([
            "range": positions(of: location.file).range(location),
            "severity": .integer(Int64(severity)),
            "source": "mappings",
            "message": .string(message),
            "relatedInformation": related.isEmpty ? nil : .array(related),
        ])
    }

    /// A failing `@tests` example as a diagnostic at the test.
    private func testFailures(of catalog: Catalog) -> [Diagnostic] {
        ContextTestRunner.run(catalog).filter { !$0.passed }.map { result in
            Diagnostic(
                message: "test failed: " + result.title + "\n" + result.failures.joined(separator: "\n"),
                location: result.test.location, help: "'mappings test' runs the tests")
        }
    }
}
