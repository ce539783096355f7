import Foundation
import Mappings
import MappingsJSON

/// Definition, references, rename and symbols: the names of the workspace and where they are written.
extension LanguageServer {
    /// What a request points at: the document's path and the 1-based line and scalar column.
    struct Cursor {
        let path: String
        let line: Int
        let column: Int
    }

    func cursor(_ params: JSONValue) -> Cursor? {
        guard let path = Self.path(of: params.field("textDocument")?.field("uri")) else { return nil }
        let place = positions(of: path).place(params.field("position"))
        return Cursor(path: path, line: place.line, column: place.column)
    }

    /// The name written under the cursor, from the document's outline.
    func occurrence(at cursor: Cursor) -> SourceOutline.Occurrence? {
        guard let outline = navigationOutline(of: cursor.path) else { return nil }
        return outline.occurrences.first { occurrence in
            occurrence.location.line == cursor.line && cursor.column >= occurrence.location.column
                && cursor.column <= occurrence.location.column + occurrence.location.length
        }
    }

    /// The name an occurrence refers to: a context member's reference (`$Templates.user`) refers
    /// to its context (`$Templates`) when no context has the whole name.
    func referent(of occurrence: SourceOutline.Occurrence) -> String {
        guard occurrence.kind == .context, !occurrence.isDeclaration, occurrence.name.contains("."),
            contextDeclarations(occurrence.name).isEmpty
        else { return occurrence.name }
        return String(occurrence.name.prefix(while: { $0 != "." }))
    }

    func contextDeclarations(_ name: String) -> [SourceOutline.Context] {
        workspaceFiles.flatMap { navigationOutline(of: $0)?.contexts ?? [] }.filter { $0.name == name }
    }

    func modelDeclarations(_ name: String) -> [SourceOutline.Model] {
        workspaceFiles.flatMap { navigationOutline(of: $0)?.models ?? [] }.filter { $0.name == name }
    }

    /// The path of a script module's file.
    func scriptPath(_ module: String) -> String {
        (scriptsDirectory as NSString).appendingPathComponent(module.replacingOccurrences(of: ".", with: "/") + ".lua")
    }

    /// The name inside a key's quotes.
    static func name(in key: SourceLocation) -> SourceLocation {
        SourceLocation(file: key.file, line: key.line, column: key.column + 1, length: key.length - 2)
    }

    func location(_ location: SourceLocation) -> JSONValue {
        ["uri": uri(of: location.file), "range": positions(of: location.file).range(location)]
    }

    func startOfFile(_ path: String) -> JSONValue {
        let start: JSONValue = ["line": 0, "character": 0]
        return ["uri": uri(of: path), "range": ["start": start, "end": start]]
    }

    // MARK: Definition

    func definition(_ params: JSONValue) -> JSONValue {
        guard let cursor = cursor(params), let occurrence = occurrence(at: cursor) else { return .null }
        let name = referent(of: occurrence)
        switch occurrence.kind {
        case .context:
            return .array(contextDeclarations(name).map { location(Self.name(in: $0.location)) })
        case .model:
            return .array(modelDeclarations(name).map { location(Self.name(in: $0.location)) })
        case .file:
            let path = importedPath(name, from: cursor.path)
            return FileManager.default.fileExists(atPath: path) || documents[path] != nil ? startOfFile(path) : .null
        case .script:
            let path = scriptPath(name)
            return FileManager.default.fileExists(atPath: path) || documents[path] != nil ? startOfFile(path) : .null
        case .function(let script):
            let path = scriptPath(script)
            guard let text = text(of: path) else { return .null }
            return .array(
                LuaOutline(text: text).functions.filter { $0.name == name }.map { function in
                    location(
                        SourceLocation(
                            file: path, line: function.line, column: function.column,
                            length: function.name.unicodeScalars.count))
                })
        }
    }

    // MARK: References and rename

    /// Every place the name under the cursor is written, with the range of the name itself.
    func places(of occurrence: SourceOutline.Occurrence, declarations: Bool) -> [SourceLocation] {
        let name = referent(of: occurrence)
        var places: [SourceLocation] = []
        for file in workspaceFiles {
            for other in navigationOutline(of: file)?.occurrences ?? [] where other.kind == occurrence.kind {
                guard declarations || !other.isDeclaration else { continue }
                let refers =
                    other.name == name
                    || (occurrence.kind == .context && !other.isDeclaration && other.name.hasPrefix(name + ".")
                        && contextDeclarations(other.name).isEmpty)
                guard refers else { continue }
                var location = other.location
                location.length = name.unicodeScalars.count
                places.append(location)
            }
        }
        if declarations, case .function(let script) = occurrence.kind, let text = text(of: scriptPath(script)) {
            for function in LuaOutline(text: text).functions where function.name == name {
                places.append(
                    SourceLocation(
                        file: scriptPath(script), line: function.line, column: function.column,
                        length: name.unicodeScalars.count))
            }
        }
        return places
    }

    func references(_ params: JSONValue) -> JSONValue {
        guard let cursor = cursor(params), let occurrence = occurrence(at: cursor) else { return .null }
        let declarations = params.field("context")?.field("includeDeclaration") == .bool(true)
        return .array(places(of: occurrence, declarations: declarations).map(location))
    }

    func prepareRename(_ params: JSONValue) -> JSONValue {
        guard let cursor = cursor(params), let occurrence = occurrence(at: cursor),
            occurrence.kind == .context || occurrence.kind == .model
        else { return .null }
        var range = occurrence.location
        let name = referent(of: occurrence)
        range.length = name.unicodeScalars.count
        return ["range": positions(of: cursor.path).range(range), "placeholder": .string(name)]
    }

    func rename(_ params: JSONValue) -> Result<JSONValue, RequestFailure> {
        guard let cursor = cursor(params), let occurrence = occurrence(at: cursor) else {
            return .failure(.invalid("there is no context or model name here"))
        }
        guard let newName = params.field("newName")?.text else { return .failure(.invalid("newName is missing")) }
        let name = referent(of: occurrence)
        switch occurrence.kind {
        case .context:
            guard !newName.isEmpty, !newName.hasPrefix("@"), !newName.contains("."),
                !newName.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.value < 0x20 })
            else {
                return .failure(
                    .invalid(
                        "\"\(newName)\" cannot name a context: write a name that does not start with '@' "
                            + "and has no '.', quote or backslash (by convention, \"$Name\")"))
            }
            if newName != name, !contextDeclarations(newName).isEmpty {
                return .failure(.invalid("a context named \"\(newName)\" exists already"))
            }
        case .model:
            let isName =
                newName.first.map { $0.isLetter || $0 == "_" } == true
                && newName.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
            guard isName, !SourceOutline.builtInTypes.contains(newName) else {
                return .failure(
                    .invalid(
                        "\"\(newName)\" cannot name a model: a letter or '_' followed by letters, digits or '_', "
                            + "not a built-in type"))
            }
            if newName != name, !modelDeclarations(newName).isEmpty {
                return .failure(.invalid("a model named \"\(newName)\" exists already"))
            }
        default:
            return .failure(.invalid("only contexts and models are renamed here; this is a \(occurrence.kind)"))
        }
        var changes: [String: [JSONValue]] = [:]
        for place in places(of: occurrence, declarations: true) {
            let uri = uri(of: place.file).text ?? place.file
            changes[uri, default: []].append([
                "range": positions(of: place.file).range(place), "newText": .string(newName),
            ])
        }
        return .success([
            "changes": .object(JSONObject(changes.sorted(by: { $0.key < $1.key }).map { ($0, .array($1)) }))
        ])
    }

    // MARK: Symbols

    func documentSymbols(_ params: JSONValue) -> JSONValue {
        guard let path = Self.path(of: params.field("textDocument")?.field("uri")),
            let outline = navigationOutline(of: path)
        else { return .array([]) }
        let positions = positions(of: path)
        func convert(_ symbol: SourceOutline.Symbol) -> JSONValue {
            let kind: Int64 =
                switch symbol.kind {
                case .context: 5
                case .model: 23
                case .enumeration: 10
                case .property: 7
                case .entry: 8
                case .selector: 3
                }
            return .members([
                "name": .string(symbol.name),
                "detail": symbol.detail.map { .string($0) },
                "kind": .integer(kind),
                "range": positions.range(from: symbol.selection, through: symbol.end),
                "selectionRange": positions.range(symbol.selection),
                "children": .array(symbol.children.map(convert)),
            ])
        }
        return .array(outline.symbols.map(convert))
    }

    // MARK: Formatting

    func formatting(_ params: JSONValue) -> JSONValue {
        guard let path = Self.path(of: params.field("textDocument")?.field("uri")), let text = text(of: path),
            let formatted = MappingsFormatter.format(text)
        else { return .null }
        guard formatted != text else { return .array([]) }
        return [["range": TextPositions(text, encoding: encoding).whole, "newText": .string(formatted)]]
    }
}
