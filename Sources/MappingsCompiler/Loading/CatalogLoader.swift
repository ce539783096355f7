import MappingsModel

/// The stages that turn `.mappings` files and a host's definitions into a `Catalog`, and the
/// diagnostics they collect on the way.
///
/// `Catalog.load` runs the stages in order: read the files and their imports, build the
/// declaration tables, compile the models (and merge the typed ones), compile the contexts,
/// bind the transformers, then either fail with every diagnostic at once or finish the
/// contexts for mapping. Each stage appends its diagnostics after the ones before it, which
/// is the order ties keep when the failure sorts them by place.
struct CatalogLoader {
    /// The Swift transformers entries may name.
    let transformers: TransformerRegistry
    /// What the host declares in Swift.
    let definitions: Definitions
    /// Every problem the stages so far found, in the order they found them.
    var diagnostics: [Diagnostic] = []
    /// What loads but is most likely a mistake; the catalog keeps them (`Catalog.warnings`).
    var warnings: [Diagnostic] = []
    /// The enums `@models` declares, once the models are compiled (contexts' `@type` may name them).
    var enumerations: [String: Enumeration] = [:]
    /// Whether a file did not parse: a name no declaration has may be one of its declarations,
    /// so it is not reported, and a context of a model no declaration has is not compiled.
    var declarationsIncomplete = false
    /// The bytes the lookup tables may take together (`Catalog.load(maxTableMemory:)`).
    var maxTableMemory = Catalog.defaultMaxTableMemory

    init(transformers: TransformerRegistry, definitions: Definitions) {
        self.transformers = transformers
        self.definitions = definitions
    }
}
