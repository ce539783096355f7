import MappingsJSON
import MappingsModel

/// A `.mappings` file after parsing and selectors, with what it declares at its top level.
struct LoadedFile: Sendable {
    /// The path as the user (or the importing file) named it.
    var path: String
    /// The same for every spelling of this file.
    var identity: String
    /// Identities of the files it imports, in order.
    var imports: [String] = []
    /// Where the first file to import this one did so; `nil` for a file named directly.
    var importedAt: SourceLocation?
    /// Top-level context definitions, in order.
    var definitions: [Declaration] = []
    /// Model declarations from `@models`, in order.
    var models: [Declaration] = []
    /// Lookup tables from `@tables`, in order; their `file` is the declaring file's path as
    /// named (table files resolve against it).
    var tables: [Declaration] = []
    /// `@luaPrelude`: Lua the file's inline code sees.
    var prelude: InlineLuaCode?
}

/// A named top-level thing (a context or a model) and where it was written.
struct Declaration: Sendable {
    var name: String
    var nameLocation: SourceLocation
    var node: SyntaxNode
    /// Identity of the declaring file.
    var file: String
}
