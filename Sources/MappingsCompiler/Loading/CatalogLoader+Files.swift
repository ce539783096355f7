extension CatalogLoader {
    /// Reads the files and directories `paths` names, and everything they `@import`.
    mutating func readFiles(_ paths: [String], from source: FileSource, traits: Traits) -> LoadedSources {
        var loader = FileLoader(source: source, traits: traits)
        _ = loader.load(roots: paths)
        diagnostics += loader.diagnostics
        warnings += loader.warnings
        return LoadedSources(
            files: loader.order.compactMap { loader.files[$0] }, reach: loader.reachability(), texts: loader.texts)
    }
}
