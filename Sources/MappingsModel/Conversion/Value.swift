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
    // Boxed: the two widest payloads would make every value (and every copy) wider.
    indirect case decimal(Decimal)
    case url(URL)
    case date(Date)
    indirect case uuid(UUID)
    /// A value of type `JSON`, kept as it came.
    case json(JSONValue)
    case object(ModelObject)
    case array([Value])
    case dictionary(ValueDictionary)
}

/// An instance of a declared model: one slot per property, in declaration order.
public struct ModelObject: Sendable, Equatable {
    /// The model the object is an instance of.
    public let model: Model
    /// Property values by slot; `.null` where unset.
    public var slots: [Value]

    /// An instance of `model` with every property unset.
    public init(model: Model) {
        self.model = model
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
