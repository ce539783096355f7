public import MappingsJSON

/// A declared model: a named, ordered list of typed properties.
///
/// The engine knows a model because it was declared, never through reflection. Property
/// values live in slots numbered by declaration order.
public struct Model: Sendable, Hashable {
    /// Everything a model holds, behind one reference: every object carries its model, and
    /// copying one reference is cheaper than copying four.
    private final class Storage: Sendable {
        let name: String
        let properties: [Property]
        let location: SourceLocation?
        let slots: [String: Int]
        /// Each property's name as JSON output writes it, `"name":`, encoded once.
        let encodedKeys: [[UInt8]]

        init(name: String, properties: [Property], location: SourceLocation?) {
            self.name = name
            self.properties = properties
            self.location = location
            self.slots = Dictionary(
                properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            self.encodedKeys = properties.map { property in
                var bytes: [UInt8] = []
                JSONWriter.writeString(property.name, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                return bytes
            }
        }
    }

    private let storage: Storage

    /// The model's name, as contexts name it in `@class`.
    public var name: String { storage.name }
    /// The properties, in declaration order: property `n` lives in slot `n`.
    public var properties: [Property] { storage.properties }
    /// Where the model is declared.
    public var location: SourceLocation? { storage.location }
    package var encodedKeys: [[UInt8]] { storage.encodedKeys }

    /// A model with these properties; `location` is where it is declared, for diagnostics.
    public init(name: String, properties: [Property], location: SourceLocation? = nil) {
        storage = Storage(name: name, properties: properties, location: location)
    }

    /// The property named `name`, or `nil`.
    public func property(named name: String) -> Property? {
        storage.slots[name].map { storage.properties[$0] }
    }

    /// Whether both are the very same model (one declaration, loaded once): a pointer comparison.
    package func isIdentical(to other: Model) -> Bool {
        storage === other.storage
    }

    /// The slot of the property named `name`, or `nil`.
    public func slot(of name: String) -> Int? {
        storage.slots[name]
    }

    public static func == (lhs: Model, rhs: Model) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.name == rhs.name && lhs.properties == rhs.properties && lhs.location == rhs.location)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(properties)
        hasher.combine(location)
    }
}

/// One property of a model.
public struct Property: Sendable, Hashable {
    /// The property's name.
    public let name: String
    /// The property's declared type.
    public let type: TypeReference
    /// Where the property is declared, for diagnostics.
    public let location: SourceLocation?

    /// A property of `type`; `location` is where it is declared.
    public init(name: String, type: TypeReference, location: SourceLocation? = nil) {
        self.name = name
        self.type = type
        self.location = location
    }
}
