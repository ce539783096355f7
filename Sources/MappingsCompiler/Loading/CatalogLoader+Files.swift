import MappingsJSON

extension CatalogLoader {
    /// Reads the files and directories `paths` names, and everything they `@import`.
    mutating func readFiles(_ paths: [String], from source: FileSource, traits: Traits) -> LoadedSources {
        var loader = FileLoader(source: source, traits: traits)
        _ = loader.load(roots: paths)
        diagnostics += loader.diagnostics
        warnings += loader.warnings
        return LoadedSources(
            files: loader.order.compactMap { loader.files[$0] }, reach: loader.reachability(), texts: loader.texts,
            unparsed: loader.unparsed)
    }

    /// Whether a file did not parse: then its models and contexts are unknown, not missing, and
    /// nothing that may rest on them is reported — no "unknown class" for a model the broken
    /// file may declare, nor the errors of a context compiled without it
    /// (`declarationsIncomplete`). The first error of each such file says so.
    mutating func noteUnparsed(_ sources: LoadedSources) -> Bool {
        guard !sources.unparsed.isEmpty else { return false }
        for path in sources.unparsed {
            guard let first = diagnostics.firstIndex(where: { $0.location?.file == path }) else { continue }
            diagnostics[first].notes.append(
                Diagnostic.Note(
                    message:
                        "the models and contexts of \(path) are unknown until it parses: what names them is checked once it does"
                ))
        }
        return true
    }
}
