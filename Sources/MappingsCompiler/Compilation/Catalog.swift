import MappingsJSON
public import MappingsModel

/// Every context and model of a set of `.mappings` files, loaded, resolved and compiled.
///
/// A catalog is immutable and `Sendable`: load it once, share it between threads, and
/// swap in a new one to change the mappings. Loading reports every problem it finds at once:
/// ```swift
/// do {
///     let catalog = try Catalog.load(["contexts"], traits: ["apiVersion": "2"])
///     print(catalog.identifiers)        // ["$TweetModel", "$TimelineModel", …]
/// } catch {
///     print(error)                      // error: unknown class "TweetModl" … with source lines
/// }
/// ```
public struct Catalog: Sendable {
    /// All compiled contexts: the named ones first, in load order, then inline `@mappings` blocks.
    public let contexts: [CompiledContext]
    /// The declared models, by name.
    public let models: [String: Model]
    /// The identifiers of the named contexts, in load order.
    public let identifiers: [String]
    /// The files loaded, in the order they were reached.
    public let files: [String]
    /// What loaded but is most likely a mistake, such as `"@when type == circle"` inside a
    /// context when no trait `type` is set (selectors test traits, not the payload);
    /// `mappings check` prints them.
    public internal(set) var warnings: [Diagnostic] = []
    private let index: [String: Int]
    /// The lookup tables of `@tables`, by name: what `@lookup` entries and scripts' `tables` read.
    package internal(set) var tables: [String: LookupTable] = [:]

    /// What the lookup tables of a load may take together unless it says otherwise: 512 MiB
    /// (a million-row CSV file of 37 MB takes 58.5 MiB).
    public static let defaultMaxTableMemory = 512 << 20

    /// The context with this identifier, or `nil`.
    public func context(_ identifier: String) -> CompiledContext? {
        index[identifier].map { contexts[$0] }
    }

    /// Loads `.mappings` files and directories (each directory's `*.mappings`, in name order),
    /// following their `@import`s, and compiles them.
    ///
    /// - Parameters:
    ///   - paths: files or directories; relative paths are relative to the current directory
    ///     (or to the root of `source` when it is in memory).
    ///   - source: where the files are read from.
    ///   - traits: what `@when` selectors test.
    ///   - transformers: the Swift transformers entries may name; a name that resolves to
    ///     none is a load-time error.
    ///   - definitions: models and contexts the host declares in Swift (typed models
    ///     included), loaded and checked with the files.
    ///   - maxTableMemory: the bytes the lookup tables (`@tables`) may take together; a table
    ///     past it is a load error naming it, its file and its size.
    /// - Throws: `MappingsError` of kind `.invalidMappings` with every diagnostic of the load.
    public static func load(
        _ paths: [String], from source: FileSource = .disk, traits: Traits = Traits(),
        transformers: TransformerRegistry = TransformerRegistry(), definitions: Definitions = Definitions(),
        maxTableMemory: Int = defaultMaxTableMemory
    ) throws(MappingsError) -> Catalog {
        var loader = CatalogLoader(transformers: transformers, definitions: definitions)
        loader.maxTableMemory = maxTableMemory
        let sources = loader.readFiles(paths, from: source, traits: traits)
        loader.declarationsIncomplete = loader.noteUnparsed(sources)
        let declarations = loader.declarations(in: sources)
        let models = loader.compileModels(declarations.models)
        var tables = loader.loadTables(sources, from: source)
        var compiled = loader.compileContexts(
            declarations.contexts, models: models, sources: sources, tables: tables.tables)
        loader.loadTestTables(
            in: &compiled.contexts, declarations: tables.declarations, from: source, texts: &tables.texts)
        loader.bindTransformers(in: &compiled.contexts, tables: tables.tables)
        loader.warnUnmappedRequired(compiled.contexts, models: models)
        if let failure = loader.failure(texts: sources.texts.merging(tables.texts) { mine, _ in mine }) {
            throw failure
        }
        CatalogLoader.finish(&compiled.contexts, models: models)
        var catalog = Catalog(
            contexts: compiled.contexts, models: models, identifiers: compiled.names,
            files: sources.files.map(\.path),
            index: Dictionary(
                compiled.names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }))
        catalog.warnings = loader.warnings
        catalog.tables = tables.tables
        return catalog
    }
}
