package import MappingsJSON
package import MappingsModel

/// A context, compiled: the model it builds and its rules in declaration order.
public struct CompiledContext: Sendable {
    /// The identifier (`$TweetModel`); `nil` for an inline `@mappings` block.
    public let identifier: String?
    /// Its index in `Catalog.contexts`.
    package let index: Int
    /// The model it builds (`@class`); `nil` for a context that maps into a plain JSON object.
    public let model: String?
    package internal(set) var rules: [Rule]
    /// Where the context is declared, and the imports that brought its file in.
    public let provenance: Provenance
    /// The tests the context carries in `"@tests"` (its own, not those of a parent).
    package var tests: [ContextTest] = []
    /// The declaration of `model`, resolved when the catalog loads (no lookup per object).
    package var modelDefinition: Model?
    /// What the context reads of a payload: the parser builds only that.
    package var demand: JSONDemand = .everything
    /// What a fast plan reads: `demand`, but a transformer's input is kept as a span of the
    /// record's text (`JSONDemand.of(context:in:spans:)`).
    package var planDemand: JSONDemand = .everything
    /// Its `"@unknownKeys"` check; `nil` for `ignore` (the default): nothing to do per record.
    package var unknownKeys: UnknownKeys?
    /// Its `"@conversions"`: `true` strict, `false` lenient, `nil` as the context it is nested in
    /// (the mapped context: as the mapper's default, lenient unless told `--strict`).
    package var strictConversions: Bool?
    /// `"@filter"`: Lua that keeps a payload (anything but `false` or `nil`) or drops it.
    package var filter: TransformerReference?
    /// `filter`, resolved when the catalog loaded.
    package internal(set) var filterTransform: (any Transformer)?
    /// Where `"@filter"` is written: the rule of the issues it gives.
    package var filterProvenance: Provenance?
    /// `"@identity"`: the properties of its model that identify a record; a database
    /// destination keys its table by them and upserts (`stream --to`).
    package var identity: IdentityRule?
}
