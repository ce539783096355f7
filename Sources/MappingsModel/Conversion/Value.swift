public import Foundation
public import MappingsJSON

/// A value converted to a declared type: what a model property holds.
public enum Value: Sendable, Equatable {
    /// Unset, or an optional holding nothing.
    case null
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    /// A decimal as written (`1.10` keeps its zero).
    case decimal(ExactDecimal)
    case url(URL)
    case date(Date)
    // Boxed: the widest payload would make every value (and every copy) wider.
    indirect case uuid(UUID)
    /// A value of type `JSON`, kept as it came.
    case json(JSONValue)
    case object(ModelObject)
    case array([Value])
    case dictionary(ValueDictionary)
}

/// An instance of a declared model: one slot per property, in declaration order.
public struct ModelObject: Sendable, Equatable {
    /// The model, and for a member of a union the discriminator the payload had: in one
    /// reference either way, so that an object (and every `Value`) is no wider for it.
    private var kind: Kind
    /// Property values by slot; `.null` where unset.
    public var slots: [Value]

    private enum Kind: Sendable, Equatable {
        case plain(Model)
        case member(UnionMember)
    }

    /// The model the object is an instance of.
    public var model: Model {
        switch kind {
        case .plain(let model): model
        case .member(let member): member.model
        }
    }

    /// For an object a union entry chose by its discriminator: the key path and the value
    /// the payload had there, which the output writes back (unless the model has a property
    /// of that key) so that reading the output again chooses the same member.
    package var unionTag: UnionTag? {
        get {
            if case .member(let member) = kind { return member.tag }
            return nil
        }
        set {
            let model = self.model
            kind = newValue.map { .member(UnionMember(model: model, tag: $0)) } ?? .plain(model)
        }
    }

    /// An instance of `model` with every property unset.
    public init(model: Model) {
        self.kind = .plain(model)
        self.slots = Array(repeating: .null, count: model.properties.count)
    }

    /// The value of the property named `name` (`nil` when the model has no such property).
    public subscript(name: String) -> Value? {
        model.slot(of: name).map { slots[$0] }
    }
}

/// The value of a `[String: T]` property: string keys in the order they came.
public struct ValueDictionary: Sendable, Equatable {
    /// The entries, in the order they came.
    public var entries: [(key: String, value: Value)]

    /// A dictionary with these entries, in this order.
    public init(_ entries: [(key: String, value: Value)] = []) {
        self.entries = entries
    }

    /// The value for `key`; setting appends a new key at the end.
    public subscript(key: String) -> Value? {
        get { entries.first(where: { $0.key.hasSameCodePoints(as: key) })?.value }
        set {
            if let index = entries.firstIndex(where: { $0.key.hasSameCodePoints(as: key) }) {
                if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((key, newValue))
            }
        }
    }

    public static func == (lhs: ValueDictionary, rhs: ValueDictionary) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key.hasSameCodePoints(as: $1.key) && $0.value == $1.value }
    }
}

/// The discriminator a union member's payload had: where (a key path of object keys) and what.
package struct UnionTag: Sendable, Hashable {
    /// The discriminator's key path, as object keys (`["meta", "kind"]`).
    package let keys: [String]
    /// The value the payload had there, as it came.
    package let value: JSONValue

    package init(keys: [String], value: JSONValue) {
        self.keys = keys
        self.value = value
    }
}

/// A union member's model and its tag, behind one reference (see `ModelObject.kind`).
private final class UnionMember: Sendable, Equatable {
    let model: Model
    let tag: UnionTag

    init(model: Model, tag: UnionTag) {
        self.model = model
        self.tag = tag
    }

    static func == (lhs: UnionMember, rhs: UnionMember) -> Bool {
        lhs.model == rhs.model && lhs.tag == rhs.tag
    }
}
