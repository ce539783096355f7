import MappingsJSON
import MappingsModel

extension CatalogLoader {
    /// The contexts a load compiled: the named ones first, then inline `@mappings` blocks.
    struct CompiledContexts {
        /// The identifiers of the named contexts, in load order.
        let names: [String]
        var contexts: [CompiledContext]
    }

    /// Resolves `@inherits` and compiles every named context of `table` against `models`.
    mutating func compileContexts(
        _ table: DeclarationTable, models: [String: Model], sources: LoadedSources,
        tables: [String: LookupTable] = [:]
    ) -> CompiledContexts {
        let names = table.names.filter { table.winners[$0] != nil }
        var compiler = ContextCompiler(
            models: models,
            inheritance: InheritanceResolver(definitions: table.winners, incomplete: declarationsIncomplete),
            named: names, importChains: sources.importChains, enumerations: enumerations)
        compiler.declarationsIncomplete = declarationsIncomplete
        compiler.texts = sources.texts
        compiler.tables = tables
        compiler.unloadedTables = Set(sources.files.flatMap { $0.tables.map(\.name) }).subtracting(tables.keys)
        for file in sources.files {
            if let prelude = file.prelude { compiler.preludes[file.path] = prelude }
        }
        for (index, name) in names.enumerated() {
            compiler.compileNamed(name, index: index)
        }
        diagnostics += compiler.inheritance.diagnostics + compiler.diagnostics
        return CompiledContexts(names: names, contexts: compiler.contexts.compactMap { $0 })
    }
}
