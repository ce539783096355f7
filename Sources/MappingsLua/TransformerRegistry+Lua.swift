public import Mappings

extension TransformerRegistry {
    /// Adds the Lua scripts of a directory as a source of transformers: an entry whose
    /// `@transformClass` no Swift closure answers resolves to `scripts/<class>.lua`.
    public mutating func add(_ scripts: LuaScripts) {
        add(provider: scripts)
    }
}
