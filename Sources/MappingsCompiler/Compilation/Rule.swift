public import MappingsJSON
public import MappingsModel

/// One compiled entry of a context: which property to set, from where, and how.
public struct Rule: Sendable {
    /// The target property path, resolved to slots where the context has a model.
    public let target: TargetPath
    public let source: PayloadKeyPath
    public let isOptional: Bool
    /// The default, already converted to the target's type (`nil` when there is none).
    public let defaultValue: Value?
    /// The default as written.
    public let defaultJSON: JSONValue?
    public let transformer: TransformerReference?
    /// The transformer `transformer` names, resolved when the catalog loaded.
    public internal(set) var transform: (any Transformer)?
    /// The transformer that undoes `transformer` when an object is serialized back to JSON
    /// (`@reverseTransformSelector`, same class and user data); `nil` when the entry names none.
    public let reverseTransformer: TransformerReference?
    /// `reverseTransformer`, resolved when the catalog loaded.
    public internal(set) var reverseTransform: (any Transformer)?
    public let object: ObjectRule?
    public let clearContent: Bool
    public let insertContentAtBegin: Bool
    /// The type the value converts to: the property's declared type, or `@type` in a context
    /// without a model; `nil` for an untyped entry of such a context (the value is kept as JSON).
    public let type: TypeReference?
    /// `@dateFormat` as written: patterns and named formats (`@unixMilliseconds`), tried in order.
    public let dateFormat: [String]?
    /// `dateFormat`, compiled.
    package let dateFormats: DateFormats?
    public let provenance: Provenance
}

/// A target property path: dotted names, each resolved to a slot of its model when there is one.
public struct TargetPath: Sendable, Hashable, CustomStringConvertible {
    public struct Step: Sendable, Hashable {
        public let name: String
        /// The property's slot in its model; `nil` in a context without a model.
        public let slot: Int?

        public init(name: String, slot: Int?) {
            self.name = name
            self.slot = slot
        }
    }

    public let steps: [Step]

    public var description: String { steps.map(\.name).joined(separator: ".") }
}

/// The transformer an entry names; resolved to a function when transformers are bound.
public struct TransformerReference: Sendable, Hashable {
    /// `@transformClass`.
    public let className: String
    /// `@transformSelector` as written.
    public let selector: String
    /// `@transformUserData`, handed to the transformer with each value.
    public let userData: JSONValue?
    /// The function name: the selector up to its first ':'.
    public init(className: String, selector: String, userData: JSONValue?) {
        self.className = className
        self.selector = selector
        self.userData = userData
    }

    public var functionName: String {
        String(selector.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }
}

/// How an entry maps a nested object (or each element of a collection).
public struct ObjectRule: Sendable, Hashable {
    /// The model built; `nil` builds a JSON object.
    public let model: String?
    /// Index of the context in `Catalog.contexts` that maps it; `nil` copies same-named keys.
    public let context: Int?

    public init(model: String?, context: Int?) {
        self.model = model
        self.context = context
    }
}
