public import MappingsJSON
import MappingsModel

/// The transformers a host provides, by `@transformClass` and function name.
///
/// The function name is the selector up to its first ':', so registering
/// `coordinate2DFromDictionary` answers `coordinate2DFromDictionary:userData:error:`.
/// ```swift
/// var transformers = TransformerRegistry()
/// transformers.register(className: "Text", selector: "uppercase:") { value, _ in
///     guard case .string(let text) = value else { throw MappingsError.transformerFailed("expected a string") }
///     return .string(text.uppercased())
/// }
/// let catalog = try Catalog.load(["contexts"], transformers: transformers)
/// ```
public struct TransformerRegistry: Sendable {
    private var entries: [String: any Transformer] = [:]
    /// Where transformers come from when no Swift closure is registered, asked in order.
    package private(set) var providers: [any TransformerProvider] = []

    /// An empty registry.
    public init() {}

    /// Adds a provider (such as the Lua scripts) asked for the transformers no Swift closure answers.
    package mutating func add(provider: any TransformerProvider) {
        providers.append(provider)
    }

    /// Registers `transformer` for a class and selector (or bare function name).
    public mutating func register(className: String, selector: String, _ transformer: any Transformer) {
        entries[Self.key(className, selector)] = transformer
    }

    /// Registers a closure for a class and selector (or bare function name).
    public mutating func register(
        className: String, selector: String,
        _ body: @escaping @Sendable (JSONValue, JSONValue?) throws -> JSONValue
    ) {
        register(className: className, selector: selector, ClosureTransformer(body))
    }

    /// The Swift transformer registered for `reference`, if any (providers are not asked).
    package func transformer(for reference: TransformerReference) -> (any Transformer)? {
        guard reference.inline == nil else { return nil }
        return entries[Self.key(reference.className, reference.selector)]
    }

    /// Resolves `reference`: a Swift closure first, then each provider in order. Returns the
    /// first transformer found, or the failure of the provider that owns the class, or `nil`.
    func resolve(_ reference: TransformerReference) -> TransformerResolution {
        if let transformer = transformer(for: reference) { return .found(transformer) }
        for provider in providers {
            let resolution = provider.resolve(reference)
            if case .unknown = resolution { continue }
            return resolution
        }
        return .unknown
    }

    /// Every registered class and function name, for suggestions.
    var names: [String] { Array(entries.keys) }

    private static func key(_ className: String, _ selector: String) -> String {
        className + "." + String(selector.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }
}
