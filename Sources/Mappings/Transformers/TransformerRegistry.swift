/// The transformers a host provides, by `@transformClass` and function name.
///
/// The function name is the selector up to its first ':', so registering
/// `coordinate2DFromDictionary` answers `coordinate2DFromDictionary:userData:error:`.
/// ```swift
/// var transformers = TransformerRegistry()
/// transformers.register(className: "Text", selector: "uppercase:") { value, _ in
///     guard case .string(let text) = value else { throw TransformerFailure("expected a string") }
///     return .string(text.uppercased())
/// }
/// let catalog = try Catalog.load(["contexts"], transformers: transformers)
/// ```
public struct TransformerRegistry: Sendable {
    private var entries: [String: any Transformer] = [:]

    public init() {}

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

    /// The transformer registered for `reference`, if any.
    public func transformer(for reference: TransformerReference) -> (any Transformer)? {
        entries[Self.key(reference.className, reference.selector)]
    }

    /// Every registered class and function name, for suggestions.
    var names: [String] { Array(entries.keys) }

    private static func key(_ className: String, _ selector: String) -> String {
        className + "." + String(selector.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }
}
