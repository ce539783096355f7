import MappingsJSON
import MappingsModel

/// A source of transformers besides the Swift closures of a `TransformerRegistry`, such as
/// the Lua scripts of `MappingsLua`.
///
/// A provider is asked once per entry when a catalog compiles. It answers `.found` with a
/// transformer, `.failed` when the class is its own but the transformer cannot be used (a
/// script that does not compile, a missing function), or `.unknown` when the class is not
/// its own, so the next provider is asked.
package protocol TransformerProvider: Sendable {
    /// Resolves the transformer an entry names.
    func resolve(_ reference: TransformerReference) -> TransformerResolution

    /// The text of the files the provider read, by the path its diagnostics name, so those
    /// diagnostics can show source lines.
    var sources: [String: String] { get }

    /// Hands the provider the lookup tables of the catalog being loaded, before any transformer
    /// is resolved: what the Lua sandbox's `tables` library reads. The default ignores them.
    func provide(tables: [String: LookupTable])
}

extension TransformerProvider {
    package func provide(tables: [String: LookupTable]) {}
}

/// What a provider answers for a transformer reference.
package enum TransformerResolution: Sendable {
    case found(any Transformer)
    /// The provider owns the class (or is the last place it could be), but cannot give this
    /// transformer; the diagnostic says why. When it has a location (a line of a script), the
    /// entry that asked is added as a note; without one, it points at the entry.
    case failed(Diagnostic)
    /// The provider does not know the class, so the next one is asked.
    case unknown
}
