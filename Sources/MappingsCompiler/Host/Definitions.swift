public import MappingsJSON
public import MappingsModel

/// Models and contexts a Swift host declares in code, loaded beside the `.mappings` files.
///
/// Everything declared here goes through the same loader as a file: `@inherits`, the checks
/// against the models, `"@tests"`, transformer resolution, and the same compiled form. Where
/// a file names `file:line:column`, a definition names the Swift file and line that made it.
/// ```swift
/// var definitions = Definitions()
/// definitions.register(Tweet.self)                  // a typed model, and the models it nests
/// definitions.context("$User", class: "UserModel") { user in
///     user.map("name", from: "name")
///     user.map("imageUrl", from: "profile_image_url", defaultValue: "https://example.com/none.png")
/// }
/// let catalog = try Catalog.load(["contexts"], definitions: definitions)
/// ```
public struct Definitions: Sendable {
    /// Context definitions, as the loader reads them from a file.
    var contexts: [Declaration] = []
    /// Untyped model declarations, likewise.
    var models: [Declaration] = []
    /// Models bound to Swift types, by name, in registration order.
    private(set) var typedModels: [RegisteredModel] = []
    /// Swift closures given to entries (`transform:`), under the names their entries use.
    var closures: [(reference: TransformerReference, transformer: any Transformer)] = []
    /// Lookup tables the host gives, in order (`table(_:rows:key:columns:)`).
    var tables: [HostTable] = []
    /// For each Swift file named by a location, the path it can be read from (for source lines).
    var sourcePaths: [String: String] = [:]

    /// The pseudo file identity every definition of a host shares.
    static let identity = "<swift host>"

    /// No definitions: a catalog of the files alone.
    public init() {}

    /// Declares an untyped model, as `@models` does: property names and types as written in a
    /// file (`"String"`, `"URL?"`, `"[TweetModel]"`).
    public mutating func model(
        _ name: String, _ properties: KeyValuePairs<String, String>,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let at = location(fileID, filePath, line)
        let members = properties.map {
            SyntaxMember(key: $0.key, keyLocation: at, value: SyntaxNode(.string($0.value), at: at))
        }
        models.append(
            Declaration(name: name, nameLocation: at, node: SyntaxNode(.object(members), at: at), file: Self.identity))
    }

    /// Declares a context, as a top-level `"$Identifier": { … }` of a file does.
    ///
    /// - Parameters:
    ///   - identifier: the context's identifier (`$Tweet`).
    ///   - modelName: the `@class` it builds; `nil` maps into a plain JSON object.
    ///   - inherits: the definitions it inherits from (`@inherits`), first listed wins.
    ///   - fileID: where the call is written, for diagnostics; left to its default.
    ///   - filePath: the same file's full path, to show its line in diagnostics; left to its default.
    ///   - line: the call's line, for diagnostics; left to its default.
    ///   - body: adds its entries and tests.
    public mutating func context(
        _ identifier: String, class modelName: String? = nil, inherits: [String] = [],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        _ body: (inout ContextBuilder) -> Void
    ) {
        let at = location(fileID, filePath, line)
        var builder = ContextBuilder(modelName: modelName, inherits: inherits, location: at)
        body(&builder)
        closures += builder.closures
        for (file, path) in builder.sourcePaths { sourcePaths[file] = path }
        contexts.append(Declaration(name: identifier, nameLocation: at, node: builder.node, file: Self.identity))
    }

    /// Registers a Swift type as a model, under `T.mapping.name`, with every model type its
    /// properties name (nested models, elements of arrays and dictionaries). A context whose
    /// `@class` is that name builds the Swift type through `Mapper.object(_:from:using:)`.
    public mutating func register<T: MappedModel>(_ type: T.Type) {
        let typed = T.mapping
        guard !typedModels.contains(where: { $0.model.name == typed.name }) else { return }
        typedModels.append(
            RegisteredModel(model: typed.model, swiftType: String(reflecting: T.self), location: typed.location))
        if let path = typed.sourcePath { sourcePaths[typed.location.file] = path }
        for nested in typed.nestedRegistrations { nested(&self) }
    }

    /// Gives a lookup table from rows in memory, as a JSON lines file of those objects would:
    /// entries read it with `"@lookup"` and scripts as `tables.<name>`, like a table of `@tables`.
    ///
    /// When a `.mappings` file declares a table of that name, these rows are its rows (its key
    /// and column types hold unless given here); otherwise `key` is needed. Problems (a row
    /// that is no object, a key written twice…) are load errors that name this call's line.
    /// ```swift
    /// definitions.table("countries", rows: [["code": "FR", "name": "France"]], key: ["code"])
    /// ```
    /// - Parameters:
    ///   - name: the table's name (an identifier).
    ///   - rows: JSON objects of column names to cells.
    ///   - key: the key's column, or columns for a composite key.
    ///   - columns: declared column types by name (`"population": "Int"`), as `"columns"` writes them.
    ///   - fileID: where the call is written, for diagnostics; left to its default.
    ///   - filePath: the same file's full path, to show its line in diagnostics; left to its default.
    ///   - line: the call's line, for diagnostics; left to its default.
    public mutating func table(
        _ name: String, rows: [JSONValue], key: [String] = [], columns: [String: String] = [:],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let at = location(fileID, filePath, line)
        tables.append(
            HostTable(
                name: name, source: .rows(rows), key: key,
                columns: columns.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, location: at))
    }

    /// Gives a lookup table from a file (CSV, JSON lines, or with `databaseTable` a table of a
    /// SQLite database), relative to the current directory; otherwise as
    /// `table(_:rows:key:columns:)`: a `.mappings` declaration of that name reads this file.
    /// - Parameters:
    ///   - name: the table's name (an identifier).
    ///   - file: the file's path, relative to the current directory.
    ///   - key: the key's column, or columns for a composite key.
    ///   - columns: declared column types by name (`"population": "Int"`), as `"columns"` writes them.
    ///   - databaseTable: for a SQLite database, the table of it to read.
    ///   - fileID: where the call is written, for diagnostics; left to its default.
    ///   - filePath: the same file's full path, to show its line in diagnostics; left to its default.
    ///   - line: the call's line, for diagnostics; left to its default.
    public mutating func table(
        _ name: String, file: String, key: [String] = [], columns: [String: String] = [:],
        databaseTable: String? = nil, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let at = location(fileID, filePath, line)
        tables.append(
            HostTable(
                name: name, source: .file(file, databaseTable: databaseTable), key: key,
                columns: columns.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, location: at))
    }

    /// The models registered through `register(_:)`, in order.
    public var registeredModels: [Model] { typedModels.map(\.model) }

    private mutating func location(_ fileID: String, _ filePath: String, _ line: Int) -> SourceLocation {
        sourcePaths[fileID] = filePath
        return SourceLocation(file: fileID, line: line, column: 1)
    }
}

/// A model bound to a Swift type, as the catalog sees it.
struct RegisteredModel: Sendable {
    var model: Model
    /// The Swift type's name, for messages.
    var swiftType: String
    var location: SourceLocation
}
