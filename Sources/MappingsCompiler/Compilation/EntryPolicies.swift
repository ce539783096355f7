/// What an entry does beyond finding and converting its value: how it matches the elements
/// of a collection with those already there (`@identity`), what a failing element does to the
/// collection (`@onElementError`), what a failing value does to the property (`@onError`),
/// and what an explicit JSON `null` means (`@null`). The defaults are today's behaviour.
package struct EntryPolicies: Sendable {
    /// `"@onElementError"`: what one element that fails does to its collection.
    package enum ElementErrors: String, Sendable, CaseIterable {
        /// The element stays, as complete as it could be made (the default).
        case keep
        /// The element is left out; its issues become warnings.
        case skip
        /// The whole property fails: the collection is left as it was.
        case fail
    }

    /// `"@onError"`: what a present value that fails conversion or its transformer does.
    package enum ValueErrors: String, Sendable, CaseIterable {
        /// The property fails, as an error (the default).
        case fail
        /// The entry's `@defaultValue` is used; the failure is a warning.
        case `default`
    }

    /// `"@null"`: what an explicit JSON `null` at the key path means.
    package enum Nulls: String, Sendable, CaseIterable {
        /// The same as a missing value (the default).
        case missing
        /// The property is set to nil, even when populating an existing object.
        case clear
    }

    /// `@identity`: how the elements of a collection are matched; `nil` appends as before.
    package var identity: IdentityRule?
    package var onElementError = ElementErrors.keep
    package var onError = ValueErrors.fail
    package var null = Nulls.missing

    package init() {}
}

/// `"@identity"`: the properties of a collection's element model that identify an element,
/// or, for a `[String: Model]` dictionary (`"@key"`), its key. The elements of a union
/// (`[Circle | Rect]`) are identified by properties every member declares, with one type.
package struct IdentityRule: Sendable {
    /// Where the identity properties are in one model the elements may be.
    package struct Slots: Sendable {
        /// The model's name.
        package let model: String
        /// The slot of each identity property in the model, in the order of `properties`.
        package let slots: [Int]
    }

    /// The property names, in the order written; empty for a dictionary's key.
    package let properties: [String]
    /// The slots in each model the elements may be: the element model, or every member of
    /// the union in its order; empty for a dictionary's key.
    package let models: [Slots]
    /// Where `"@identity"` is written: the rule the reports name.
    package let provenance: Provenance

    /// What a `[String: Model]` entry writes: the key identifies the element.
    package static let key = "@key"

    /// `id`, or `(owner, number)` for several properties.
    package var description: String {
        properties.isEmpty
            ? "key" : properties.count == 1 ? properties[0] : "(" + properties.joined(separator: ", ") + ")"
    }
}
