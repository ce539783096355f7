import Foundation
import MappingsJSON
import MappingsModel

/// Reads `.mappings` files and everything they `@import`, once each.
///
/// Each file is parsed, its selectors are applied, and its top level is split into
/// `@import`s, `@models` and context definitions. A file reached twice (a diamond, or a
/// cycle) is loaded once. Problems are collected, never thrown, so that one load reports
/// everything that is wrong.
struct FileLoader {
    let source: FileSource
    let traits: Traits
    private(set) var files: [String: LoadedFile] = [:]
    /// Identities of the loaded files, in the order they were first reached.
    private(set) var order: [String] = []
    /// Texts of the files read, by path, for rendering diagnostics.
    private(set) var texts: [String: String] = [:]
    private(set) var diagnostics: [Diagnostic] = []
    /// The files that did not parse (a syntax error): their declarations are unknown.
    private(set) var unparsed: [String] = []
    /// What loads but is most likely a mistake (`SelectorResolver.warnings`).
    private(set) var warnings: [Diagnostic] = []

    init(source: FileSource, traits: Traits) {
        self.source = source
        self.traits = traits
    }

    /// Loads the roots: each a file, or a directory whose `*.mappings` files load in name order.
    /// Returns the identities of the root files.
    mutating func load(roots: [String]) -> [String] {
        var rootFiles: [String] = []
        for root in roots {
            switch source.entry(at: root) {
            case .file:
                rootFiles.append(root)
            case .directory:
                do {
                    let found = try source.mappingsFiles(in: root)
                    if found.isEmpty {
                        diagnostics.append(Diagnostic(message: "no .mappings file in the directory \"\(root)\""))
                    }
                    rootFiles += found
                } catch {
                    diagnostics.append(
                        Diagnostic(message: "cannot list the directory \"\(root)\": \(FileError.reason(error))"))
                }
            case .missing:
                diagnostics.append(
                    Diagnostic(
                        message: "no such file or directory: \"\(root)\"",
                        help: source.missingHelp(for: root)))
            }
        }
        return rootFiles.compactMap { loadFile($0, importedAt: nil) }
    }

    /// Loads one file (and its imports) unless it was loaded already; returns its identity.
    private mutating func loadFile(_ path: String, importedAt: SourceLocation?) -> String? {
        let identity = source.identity(of: path)
        if files[identity] != nil { return identity }
        let bytes: [UInt8]
        do {
            bytes = try source.read(path)
        } catch {
            diagnostics.append(
                Diagnostic(
                    message: "cannot read \"\(path)\": \(FileError.reason(error))", location: importedAt,
                    help: importedAt == nil ? nil : "check the path: it is relative to the importing file"))
            return nil
        }
        var file = LoadedFile(path: path, identity: identity, importedAt: importedAt)
        files[identity] = file
        order.append(identity)
        texts[path] = String(decoding: bytes, as: UTF8.self)

        var parser = SyntaxParser(bytes: bytes, file: path)
        let parsed = parser.parse()
        diagnostics += parser.diagnostics
        if parsed == nil || !parser.diagnostics.isEmpty { unparsed.append(path) }
        guard let parsed else { return identity }
        var selectors = SelectorResolver(traits: traits)
        let root = selectors.resolve(parsed)
        diagnostics += selectors.diagnostics
        warnings += selectors.warnings
        guard let members = root.members else {
            diagnostics.append(
                Diagnostic(
                    message: "a .mappings file holds a JSON object, not \(root.typeName)", location: root.location,
                    help: "wrap the content in { } with context identifiers as keys"))
            return identity
        }

        var importRequests: [(value: String, location: SourceLocation)] = []
        for member in members {
            switch member.key {
            case "@import":
                importRequests += member.value.stringList(
                    whole: "\"@import\" takes a path or an array of paths",
                    element: "an import is a non-empty path string", diagnostics: &diagnostics)
            case "@models":
                file.models += modelDeclarations(member.value, file: identity)
            case "@tables":
                file.tables += tableDeclarations(member.value, file: path)
            case "@luaPrelude":
                guard let code = member.value.stringValue, !code.isEmpty else {
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "\"@luaPrelude\" takes Lua code (a non-empty string), not \(member.value.stringValue == nil ? member.value.typeName : "an empty string")",
                            location: member.value.location,
                            help: "write \"@luaPrelude\": \"local function cents(n) return n / 100 end\""))
                    continue
                }
                file.prelude = InlineLuaCode(member.value, code: code, texts: texts)
            default:
                if member.key.hasPrefix("@") {
                    diagnostics.append(
                        Diagnostic(
                            message: "unknown top-level keyword \"\(member.key)\"", location: member.keyLocation,
                            help: Suggestion.help(for: member.key, among: Keywords.topLevel + Selector.keywords)
                                ?? "the top level holds context identifiers, \"@import\", \"@models\", \"@tables\" and \"@luaPrelude\""
                        ))
                } else {
                    file.definitions.append(
                        Declaration(
                            name: member.key, nameLocation: member.keyLocation, node: member.value, file: identity))
                }
            }
        }
        files[identity] = file
        for request in importRequests {
            var target = Path.join(Path.directory(of: path), request.value)
            if !Path.hasExtension(target) { target += ".mappings" }
            if let imported = loadFile(target, importedAt: request.location) {
                files[identity]?.imports.append(imported)
            }
        }
        return identity
    }

    private mutating func modelDeclarations(_ node: SyntaxNode, file: String) -> [Declaration] {
        guard let members = node.members else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@models\" takes an object of model declarations, not \(node.typeName)",
                    location: node.location,
                    help: "write \"@models\": { \"UserModel\": { \"name\": \"String\" } }"))
            return []
        }
        return members.map { Declaration(name: $0.key, nameLocation: $0.keyLocation, node: $0.value, file: file) }
    }

    /// The tables of a `@tables` object, each read when the tables load (`CatalogLoader+Tables.swift`).
    private mutating func tableDeclarations(_ node: SyntaxNode, file: String) -> [Declaration] {
        guard let members = node.members else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@tables\" takes an object of lookup tables, not \(node.typeName)",
                    location: node.location,
                    help:
                        "write \"@tables\": { \"countries\": { \"file\": \"tables/countries.csv\", \"key\": \"code\" } }"
                ))
            return []
        }
        return members.map { Declaration(name: $0.key, nameLocation: $0.keyLocation, node: $0.value, file: file) }
    }

    /// For each file, every file it reaches through `@import`, directly or not.
    func reachability() -> [String: Set<String>] {
        var reach: [String: Set<String>] = [:]
        for identity in order {
            var seen = Set<String>()
            var stack = files[identity]?.imports ?? []
            while let next = stack.popLast() {
                if seen.insert(next).inserted { stack += files[next]?.imports ?? [] }
            }
            reach[identity] = seen
        }
        return reach
    }
}
