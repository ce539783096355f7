import Foundation
package import Mappings
package import MappingsLua

/// The files as an editor holds them: the disk, with unsaved texts over it — `.mappings` texts
/// over the files the loader reads, `.lua` texts over the scripts directory's. The playground's
/// runs and saves and the language server's checks all load through here.
package struct UnsavedTexts {
    package let scriptsDirectory: String
    package let traits: Traits
    package let limits: LuaLimits
    /// Unsaved texts by absolute (or root-relative) path, `.mappings` and `.lua` alike.
    package let texts: [String: String]
    /// The bytes the lookup tables may take together (`--max-table-memory`).
    package let maxTableMemory: Int

    package init(
        scriptsDirectory: String, traits: Traits, limits: LuaLimits, texts: [String: String],
        maxTableMemory: Int = Catalog.defaultMaxTableMemory
    ) {
        self.scriptsDirectory = scriptsDirectory
        self.traits = traits
        self.limits = limits
        self.texts = texts
        self.maxTableMemory = maxTableMemory
    }

    /// The scripts, each with its unsaved text when it has one.
    package func scripts() -> LuaScripts {
        LuaScripts(directory: scriptsDirectory, limits: limits, unsaved: texts.filter { $0.key.hasSuffix(".lua") })
    }

    /// The catalog of `roots` with the unsaved texts, its transformers from `scripts` (by
    /// default the scripts with their unsaved texts).
    package func load(_ roots: [String], scripts: LuaScripts? = nil) throws(MappingsError) -> Catalog {
        var registry = TransformerRegistry()
        registry.add(scripts ?? self.scripts())
        return try Catalog.load(
            roots, from: .disk(overlaying: texts.filter { $0.key.hasSuffix(".mappings") }), traits: traits,
            transformers: registry, maxTableMemory: maxTableMemory)
    }
}
