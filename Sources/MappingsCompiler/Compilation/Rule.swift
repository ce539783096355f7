package import MappingsJSON
package import MappingsModel

/// One compiled entry of a context: which property to set, from where, and how.
package struct Rule: Sendable {
    /// The target property path, resolved to slots where the context has a model.
    package let target: TargetPath
    /// The key path the entry reads, the first one when `@keyPath` names several; serialize writes there.
    package let source: PayloadKeyPath
    /// The key paths tried in order after `source` when it is missing or null (`@keyPath` as an
    /// array); empty, and never looked at while mapping, for an entry with one key path.
    package let fallbacks: [PayloadKeyPath]
    package let isOptional: Bool
    /// The default, already converted to the target's type (`nil` when there is none).
    package let defaultValue: Value?
    /// The default as written.
    package let defaultJSON: JSONValue?
    package let transformer: TransformerReference?
    /// The transformer `transformer` names, resolved when the catalog loaded.
    package internal(set) var transform: (any Transformer)?
    /// The transformer that undoes `transformer` when an object is serialized back to JSON
    /// (`@reverseTransformSelector`, same class and user data); `nil` when the entry names none.
    package let reverseTransformer: TransformerReference?
    /// `reverseTransformer`, resolved when the catalog loaded.
    package internal(set) var reverseTransform: (any Transformer)?
    package internal(set) var object: ObjectRule?
    package let clearContent: Bool
    package let insertContentAtBegin: Bool
    /// The type the value converts to: the property's declared type, or `@type` in a context
    /// without a model; `nil` for an untyped entry of such a context (the value is kept as JSON).
    package let type: TypeReference?
    /// `@dateFormat` as written: patterns and named formats (`@unixMilliseconds`), tried in order.
    package let dateFormat: [String]?
    /// `dateFormat`, compiled.
    package let dateFormats: DateFormats?
    package let provenance: Provenance
    /// `@valueMap`, compiled: source values translated before conversion (`nil`: none, no cost).
    package var valueMap: ValueMap? = nil
    /// The `@keyStyle` an automatic entry was derived from; `nil` for an entry written out.
    package internal(set) var keyStyle: KeyStyle? = nil
    /// `@identity`, `@onElementError`, `@onError` and `@null`: what the entry does with existing
    /// elements, failing elements, failing values and explicit nulls (the defaults cost nothing).
    package internal(set) var policies = EntryPolicies()
    /// `@reverseFanOut`: whether serialize writes a collection read through a key path of two
    /// keys or more as an array of objects at the key before the last (`true`) or as nested
    /// objects (`false`); `nil` leaves it to `ReverseRun` (arrays of objects for collections of
    /// single values, nested objects otherwise).
    package internal(set) var reverseFanOut: Bool? = nil
    /// `"@reverse": false`: the entry maps forward only; serialize leaves it out, and neither a
    /// reverse transformer nor a one-to-one `@valueMap` is needed.
    package internal(set) var isForwardOnly = false
    /// A keyed selection (`"@keyPath": { "amount": "amount", … }`): the value is an object of
    /// these keys, each the value its key paths find (the first present and not null), or null.
    /// `source` is then `@self` and means nothing; `nil` for an entry with key paths.
    package internal(set) var selection: [SelectedKey]? = nil

    /// `@lookup`: the value is a key, and the entry's value is the row of that key in a table
    /// (or one of its cells); `nil` for an entry without one, which costs nothing.
    package internal(set) var lookup: TableLookup? = nil

    /// Every key path the entry reads: its selection's, or `source` and its fallbacks.
    package var keyPaths: [PayloadKeyPath] {
        selection?.flatMap(\.paths) ?? [source] + fallbacks
    }
}

/// One key of a keyed selection and the key paths tried in order for its value.
package struct SelectedKey: Sendable, Hashable {
    package let key: String
    package let paths: [PayloadKeyPath]

    package init(key: String, paths: [PayloadKeyPath]) {
        self.key = key
        self.paths = paths
    }
}

extension [SelectedKey] {
    /// `{amount: amount, currency: [currency, default_currency]}`, for messages.
    package var description: String {
        "{"
            + map { selected in
                let paths = selected.paths.map(\.description)
                return "\(selected.key): " + (paths.count == 1 ? paths[0] : "[" + paths.joined(separator: ", ") + "]")
            }.joined(separator: ", ") + "}"
    }
}

/// A target property path: dotted names, each resolved to a slot of its model when there is one.
package struct TargetPath: Sendable, Hashable, CustomStringConvertible {
    package struct Step: Sendable, Hashable {
        package let name: String
        /// The property's slot in its model; `nil` in a context without a model.
        package let slot: Int?

        package init(name: String, slot: Int?) {
            self.name = name
            self.slot = slot
        }
    }

    package let steps: [Step]

    package var description: String { steps.map(\.name).joined(separator: ".") }
}

/// The transformer an entry names; resolved to a function when transformers are bound.
package struct TransformerReference: Sendable, Hashable {
    /// `@transformClass`.
    package let className: String
    /// `@transformSelector` as written.
    package let selector: String
    /// `@transformUserData`, handed to the transformer with each value.
    package let userData: JSONValue?
    /// The code of `@lua` or `@reverseLua` (then `className` and `selector` are the keyword).
    package let inline: InlineLua?

    package init(className: String, selector: String, userData: JSONValue?) {
        self.className = className
        self.selector = selector
        self.userData = userData
        self.inline = nil
    }

    /// A reference to inline code: `@lua`, `@reverseLua` or `@filter`.
    package init(inline: InlineLua, userData: JSONValue?) {
        self.className = inline.keyword
        self.selector = inline.keyword
        self.userData = userData
        self.inline = inline
    }

    /// How messages name the transformer: `Class.function`, or the inline code's keyword (the
    /// reasons of its failures name the place of the code).
    package var displayName: String {
        guard let inline else { return "\(className).\(functionName)" }
        return inline.keyword
    }

    /// The function name: the selector up to its first ':'.

    package var functionName: String {
        String(selector.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }
}

/// How an entry maps a nested object (or each element of a collection).
package struct ObjectRule: Sendable, Hashable {
    /// The model built; `nil` builds a JSON object.
    package let model: String?
    /// Index of the context in `Catalog.contexts` that maps it; `nil` copies same-named keys.
    package let context: Int?
    /// For a union: how each object chooses its case (`context` is `nil` then).
    package var union: UnionRule?

    package init(model: String?, context: Int?, union: UnionRule? = nil) {
        self.model = model
        self.context = context
        self.union = union
    }
}
