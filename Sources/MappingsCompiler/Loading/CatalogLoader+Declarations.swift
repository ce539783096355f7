extension CatalogLoader {
    /// The model and context declarations of the files and the host, one winner per name.
    struct Declarations {
        let models: DeclarationTable
        let contexts: DeclarationTable
    }

    /// Builds the tables of models and contexts that `sources` and the host's definitions
    /// declare, reporting names declared twice where neither file overrides the other.
    mutating func declarations(in sources: LoadedSources) -> Declarations {
        let models = DeclarationTable(
            sources.files.flatMap(\.models) + definitions.models, what: "model", reach: sources.reach)
        let contexts = DeclarationTable(
            sources.files.flatMap(\.definitions) + definitions.contexts, what: "context", reach: sources.reach)
        diagnostics += models.diagnostics + contexts.diagnostics
        return Declarations(models: models, contexts: contexts)
    }
}
