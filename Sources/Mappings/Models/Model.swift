/// A declared model: a named, ordered list of typed properties.
///
/// The engine knows a model because it was declared, never through reflection. Property
/// values live in slots numbered by declaration order.
public struct Model: Sendable, Hashable {
    public let name: String
    public let properties: [Property]
    /// Where the model is declared.
    public let location: SourceLocation?
    private let slots: [String: Int]

    public init(name: String, properties: [Property], location: SourceLocation? = nil) {
        self.name = name
        self.properties = properties
        self.location = location
        self.slots = Dictionary(properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The property named `name`, or `nil`.
    public func property(named name: String) -> Property? {
        slots[name].map { properties[$0] }
    }

    /// The slot of the property named `name`, or `nil`.
    public func slot(of name: String) -> Int? {
        slots[name]
    }
}

/// One property of a model.
public struct Property: Sendable, Hashable {
    public let name: String
    public let type: TypeReference
    public let location: SourceLocation?

    public init(name: String, type: TypeReference, location: SourceLocation? = nil) {
        self.name = name
        self.type = type
        self.location = location
    }
}
