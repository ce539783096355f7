import MappingsJSON

/// A string enum declared in `@models` (`"Status": ["active", "suspended", "deleted"]`), or
/// by a Swift enum with `String` raw values: a type whose values are the listed strings.
///
/// A property of an enum type holds one of its values as a string; a payload value outside
/// them does not convert, and the failure lists the allowed values:
/// ```
/// expected Status, found string "actve": allowed values are "active", "suspended", "deleted"; did you mean "active"?
/// ```
public struct Enumeration: Sendable, Hashable {
    /// Everything an enum holds, behind one reference: types are copied with every rule.
    private final class Storage: Sendable {
        let name: String
        let values: [String]
        let allowed: Set<CodePointKey>

        init(name: String, values: [String]) {
            self.name = name
            self.values = values
            self.allowed = Set(values.map { CodePointKey($0) })
        }
    }

    private let storage: Storage

    /// The enum's name, as types name it.
    public var name: String { storage.name }
    /// The allowed values, in declaration order.
    public var values: [String] { storage.values }

    /// An enum named `name` whose values are `values`.
    public init(name: String, values: [String]) {
        storage = Storage(name: name, values: values)
    }

    /// The enum of a Swift enum's raw values, named after the Swift type (`Status`).
    ///
    /// A Swift enum declares its mapping type with it, so that payload values outside its cases
    /// fail with the allowed values listed, and a `@models` enum of the same name must list the
    /// same values:
    /// ```swift
    /// enum Status: String, CaseIterable, MappableValue {
    ///     case active, suspended, deleted
    ///     static var mappingType: TypeReference { .enumeration(Enumeration(Status.self)) }
    /// }
    /// ```
    /// - Parameter type: a `CaseIterable` Swift enum with `String` raw values.
    public init<T: RawRepresentable & CaseIterable>(_ type: T.Type) where T.RawValue == String {
        self.init(name: String(describing: type), values: type.allCases.map(\.rawValue))
    }

    /// Whether `value` is one of the allowed values (compared code point by code point).
    @inline(__always)
    public func allows(_ value: String) -> Bool {
        storage.allowed.contains(CodePointKey(value))
    }

    /// The allowed values as messages list them: `"active", "suspended", "deleted"`.
    package var listed: String {
        values.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    public static func == (lhs: Enumeration, rhs: Enumeration) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.name.hasSameCodePoints(as: rhs.name) && lhs.values.count == rhs.values.count
                && zip(lhs.values, rhs.values).allSatisfy { $0.hasSameCodePoints(as: $1) })
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(values)
    }
}
