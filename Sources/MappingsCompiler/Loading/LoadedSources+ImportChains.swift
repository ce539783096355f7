import MappingsJSON

extension LoadedSources {
    /// For each file path, the `@import` sites that brought it in, nearest first (empty for a
    /// file named directly); rules remember theirs as provenance.
    var importChains: [String: [SourceLocation]] {
        var chains: [String: [SourceLocation]] = [:]
        for file in files {
            var chain: [SourceLocation] = []
            var site = file.importedAt
            while let current = site, chain.count < files.count {
                chain.append(current)
                site = files.first(where: { $0.path == current.file })?.importedAt
            }
            chains[file.path] = chain
        }
        return chains
    }
}
