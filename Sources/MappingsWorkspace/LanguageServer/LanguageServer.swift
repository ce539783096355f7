import Foundation
package import Mappings
import MappingsJSON
package import MappingsLua

/// `mappings lsp`: a Language Server Protocol 3.17 server over stdin and stdout.
///
/// One thread reads messages and answers them in order. Edits are held until the editor has
/// been quiet for `debounce` seconds; then the workspace is checked with the compiler, as
/// `mappings check` checks it, with the open documents' unsaved texts, and the diagnostics of
/// every file that has some (or had some) are published. Requests read the documents'
/// outlines (`SourceOutline`), which need no successful load, so hover, completion and
/// navigation work while a file is broken.
package final class LanguageServer {
    /// Where the workspace's files are and what the checks run with.
    package struct Configuration {
        /// `--mappings` paths as given (absolute or relative to the current directory); empty for
        /// the workspace folder's `contexts`.
        var mappings: [String]
        /// `--scripts`, or `nil` for the workspace folder's `scripts`.
        var scripts: String?
        var traits: Traits
        var limits: LuaLimits

        package init(mappings: [String], scripts: String?, traits: Traits, limits: LuaLimits) {
            self.mappings = mappings
            self.scripts = scripts
            self.traits = traits
            self.limits = limits
        }
    }

    /// A document the editor has open.
    struct Document {
        var text: String
        var version: Int
    }

    let connection: LSPConnection
    let configuration: Configuration
    /// How long the editor must be quiet before a check.
    let debounce: Double
    /// The workspace folder (absolute).
    var root: String
    var encoding: TextPositions.Encoding = .utf16
    /// Open documents, by absolute path.
    var documents: [String: Document] = [:]
    /// Whether a change waits for a check, and since when.
    var pendingSince: Date?
    /// The files whose diagnostics were last published non-empty.
    var published: Set<String> = []
    var initialized = false
    var shutdownRequested = false
    /// Outlines of files on disk, by path, with the modification date they were read at.
    var diskOutlines: [String: (date: Date, outline: SourceOutline)] = [:]
    /// Outlines of open documents, by path, with the version they were made from.
    var documentOutlines: [String: (version: Int, outline: SourceOutline)] = [:]
    /// The last outline of each open document that parsed, for navigating while it does not.
    var lastParsed: [String: SourceOutline] = [:]

    package init(connection: LSPConnection, configuration: Configuration, debounce: Double = 0.2) {
        self.connection = connection
        self.configuration = configuration
        self.debounce = debounce
        root = FileManager.default.currentDirectoryPath
    }

    /// Serves until the editor says `exit` or closes the stream; returns the exit status.
    package func run() -> Int32 {
        while true {
            var timeout: Double?
            if let pendingSince { timeout = max(0, debounce - Date().timeIntervalSince(pendingSince)) }
            switch connection.read(timeout: timeout) {
            case .timeout:
                if pendingSince != nil {
                    pendingSince = nil
                    publishDiagnostics()
                }
            case .closed:
                return shutdownRequested ? 0 : 1
            case .unreadable(let reason):
                connection.send(Self.error(id: .null, code: -32700, message: "parse error: \(reason)"))
            case .message(let message):
                if let status = handle(message) { return status }
            }
        }
    }

    /// Handles one message; returns an exit status when the server must stop.
    private func handle(_ message: JSONValue) -> Int32? {
        guard case .object = message, let method = message.field("method")?.text else {
            // A response (the server sends no request, so there is nothing to match it with), or
            // something that is not a message at all.
            let isResponse =
                message.field("id") != nil && (message.field("result") != nil || message.field("error") != nil)
            if !isResponse {
                connection.send(Self.error(id: message.field("id") ?? .null, code: -32600, message: "invalid request"))
            }
            return nil
        }
        let id = message.field("id")
        let params = message.field("params") ?? .null
        if method == "exit" { return shutdownRequested ? 0 : 1 }
        if id == nil {
            notification(method, params)
            return nil
        }
        guard let id else { return nil }
        if !initialized && method != "initialize" {
            connection.send(Self.error(id: id, code: -32002, message: "the server is not initialized"))
            return nil
        }
        if shutdownRequested {
            connection.send(Self.error(id: id, code: -32600, message: "the server is shutting down"))
            return nil
        }
        switch request(method, params) {
        case .success(let result):
            connection.send(["jsonrpc": "2.0", "id": id, "result": result])
        case .failure(let failure):
            connection.send(Self.error(id: id, code: failure.code, message: failure.message))
        }
        return nil
    }

    struct RequestFailure: Error {
        let code: Int
        let message: String
        static func invalid(_ message: String) -> RequestFailure { RequestFailure(code: -32602, message: message) }
    }

    private func request(_ method: String, _ params: JSONValue) -> Result<JSONValue, RequestFailure> {
        switch method {
        case "initialize": return .success(initialize(params))
        case "shutdown":
            shutdownRequested = true
            return .success(.null)
        case "textDocument/hover": return .success(hover(params))
        case "textDocument/completion": return .success(completion(params))
        case "textDocument/definition": return .success(definition(params))
        case "textDocument/references": return .success(references(params))
        case "textDocument/prepareRename": return .success(prepareRename(params))
        case "textDocument/rename": return rename(params)
        case "textDocument/documentSymbol": return .success(documentSymbols(params))
        case "textDocument/formatting": return .success(formatting(params))
        default: return .failure(RequestFailure(code: -32601, message: "unknown method \"\(method)\""))
        }
    }

    private func notification(_ method: String, _ params: JSONValue) {
        switch method {
        case "initialized":
            pendingSince = .distantPast
        case "textDocument/didOpen":
            guard let item = params.field("textDocument"), let path = Self.path(of: item.field("uri")),
                let text = item.field("text")?.text
            else { return }
            documents[path] = Document(text: text, version: item.field("version")?.integer ?? 0)
            if path.hasSuffix(".mappings") { _ = outline(of: path) }
            pendingSince = pendingSince ?? .distantPast
        case "textDocument/didChange":
            guard let item = params.field("textDocument"), let path = Self.path(of: item.field("uri")),
                var document = documents[path]
            else { return }
            for change in params.field("contentChanges")?.elements ?? [] {
                guard let text = change.field("text")?.text else { continue }
                if let range = change.field("range") {
                    document.text = Self.replacing(range, in: document.text, with: text, encoding: encoding)
                } else {
                    document.text = text
                }
            }
            document.version = item.field("version")?.integer ?? document.version + 1
            documents[path] = document
            // Outlined at once, so that the last text that parsed is kept for navigating the next ones.
            if path.hasSuffix(".mappings") { _ = outline(of: path) }
            pendingSince = Date()
        case "textDocument/didSave", "workspace/didChangeWatchedFiles":
            pendingSince = pendingSince ?? Date()
        case "textDocument/didClose":
            guard let path = Self.path(of: params.field("textDocument")?.field("uri")) else { return }
            documents[path] = nil
            documentOutlines[path] = nil
            lastParsed[path] = nil
            pendingSince = pendingSince ?? Date()
        default:
            break
        }
    }

    private func initialize(_ params: JSONValue) -> JSONValue {
        initialized = true
        if let path = Self.path(of: params.field("rootUri"))
            ?? Self.path(
                of: params.field("workspaceFolders")?.elements.first?.field("uri"))
        {
            root = path
        } else if let path = params.field("rootPath")?.text {
            root = path
        }
        let offered =
            params.field("capabilities")?.field("general")?.field("positionEncodings")?.elements
            .compactMap(\.text) ?? []
        encoding = offered.contains("utf-32") ? .utf32 : offered.contains("utf-8") ? .utf8 : .utf16
        let capabilities: JSONValue = [
            "positionEncoding": .string(encoding.rawValue),
            "textDocumentSync": ["openClose": true, "change": 2, "save": true],
            "hoverProvider": true,
            "completionProvider": ["triggerCharacters": ["\"", "$", "@", "."]],
            "definitionProvider": true,
            "referencesProvider": true,
            "renameProvider": ["prepareProvider": true],
            "documentSymbolProvider": true,
            "documentFormattingProvider": true,
        ]
        return ["capabilities": capabilities, "serverInfo": ["name": "mappings", "version": "1"]]
    }

    // MARK: Helpers

    static func error(id: JSONValue, code: Int, message: String) -> JSONValue {
        ["jsonrpc": "2.0", "id": id, "error": ["code": .integer(Int64(code)), "message": .string(message)]]
    }

    /// The path of a `file:` URI, percent-decoded; `nil` for another scheme.
    static func path(of uri: JSONValue?) -> String? {
        guard let uri = uri?.text, uri.hasPrefix("file://") else { return nil }
        let encoded = String(uri.dropFirst("file://".count))
        return encoded.removingPercentEncoding ?? encoded
    }

    /// The `file:` URI of a path (made absolute against the workspace folder).
    func uri(of path: String) -> JSONValue {
        let absolute = absolute(path)
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#[]@!$&'()*+,;=:")
        allowed.insert("/")
        return .string("file://" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute))
    }

    func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : (root as NSString).appendingPathComponent(path)
    }

    /// The text of a file: the editor's when it is open, else the disk's.
    func text(of path: String) -> String? {
        if let document = documents[absolute(path)] { return document.text }
        return FileManager.default.contents(atPath: absolute(path)).map { String(decoding: $0, as: UTF8.self) }
    }

    func positions(of path: String) -> TextPositions {
        TextPositions(text(of: path) ?? "", encoding: encoding)
    }

    /// `text` with `range` (a protocol range) replaced by `replacement`.
    static func replacing(
        _ range: JSONValue, in text: String, with replacement: String, encoding: TextPositions.Encoding
    ) -> String {
        let positions = TextPositions(text, encoding: encoding)
        let start = positions.place(range.field("start"))
        let end = positions.place(range.field("end"))
        let startIndex = index(of: start, in: text)
        let endIndex = max(startIndex, index(of: end, in: text))
        var result = text
        result.unicodeScalars.replaceSubrange(startIndex..<endIndex, with: replacement.unicodeScalars)
        return result
    }

    /// The scalar index of a 1-based line and column (clamped into the text).
    private static func index(of place: (line: Int, column: Int), in text: String) -> String.UnicodeScalarView.Index {
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        var line = 1
        while line < place.line, index < scalars.endIndex {
            if scalars[index] == "\n" { line += 1 }
            index = scalars.index(after: index)
        }
        var column = 1
        while column < place.column, index < scalars.endIndex, scalars[index] != "\n" {
            index = scalars.index(after: index)
            column += 1
        }
        return index
    }
}
