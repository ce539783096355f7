import MappingsJSON
import MappingsModel

extension CatalogLoader {
    /// Compiles the declared models, then adds the models bound to Swift types.
    mutating func compileModels(_ table: DeclarationTable) -> [String: Model] {
        let typed = definitions.typedModels
        let compiler = ModelCompiler(
            declarations: table.names.compactMap { table.winners[$0] }, order: table.names,
            external: typed.map(\.model.name), incomplete: declarationsIncomplete)
        diagnostics += compiler.diagnostics
        enumerations = compiler.enumerations
        let merge = TypedModelMerge(typed, into: compiler.models, enumerations: compiler.enumerations)
        diagnostics += merge.diagnostics
        return merge.models
    }
}
