import MappingsJSON
public import MappingsModel

/// A Swift type the engine builds: it says once, through key paths, how its properties bind.
///
/// ```swift
/// struct User: MappedModel {
///     var name = ""
///     var imageUrl: URL?
///     static let mapping = TypedModel<User>("UserModel", make: User.init) { user in
///         user.bind("name", \.name)
///         user.bind("imageUrl", \.imageUrl)
///     }
/// }
/// ```
/// A class conforms the same way; it must be `final` (the mapping names `Self`).
public protocol MappedModel: MappableValue {
    /// How the type's properties bind, and the model name contexts build it by (`@class`).
    static var mapping: TypedModel<Self> { get }
}

extension MappedModel {
    public static var mappingType: TypeReference { .model(mapping.name) }

    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> Self? {
        guard case .object = value else { return mismatch(value, &failures) }
        var instance = mapping.make()
        mapping.update(&instance, from: value, failures: &failures)
        return instance
    }

    public var mappingValue: Value { Self.mapping.value(of: self) }

    public mutating func update(from value: Value, failures: inout [ConversionFailure]) {
        guard case .object = value else {
            if let new = Self.mapped(from: value, failures: &failures) { self = new }
            return
        }
        Self.mapping.update(&self, from: value, failures: &failures)
    }

    public static func registerModels(in definitions: inout Definitions) {
        definitions.register(Self.self)
    }
}

/// How a Swift type's properties bind to a model: each property's name, key path and type.
///
/// The model it declares lists the properties in binding order, with the types their Swift
/// types map to (`String?` is `String?`, `[Tweet]` is `[TweetModel]`). Values are read and
/// written through the key paths, never by name.
public struct TypedModel<Root>: Sendable {
    /// The model name (`@class`).
    public let name: String
    /// The model, as the catalog holds it.
    public let model: Model
    let make: @Sendable () -> Root
    private let setters: [@Sendable (inout Root, Value, inout [ConversionFailure]) -> Void]
    private let getters: [@Sendable (Root) -> Value]
    let nestedRegistrations: [@Sendable (inout Definitions) -> Void]
    /// Whether a key path is the one bound to each property, by slot.
    private let keyPathTests: [@Sendable (AnyKeyPath) -> Bool]
    let location: SourceLocation
    let sourcePath: String?

    /// Declares the binding of `Root`.
    ///
    /// - Parameters:
    ///   - name: the model name contexts build it by.
    ///   - make: a new instance, before mapping sets its properties (for a property no value
    ///     reaches, its initial value stays).
    ///   - fileID: where the call is written, for diagnostics; left to its default.
    ///   - filePath: the same file's full path, to show its line in diagnostics; left to its default.
    ///   - line: the call's line, for diagnostics; left to its default.
    ///   - bind: binds each property, in declaration order.
    public init(
        _ name: String, make: @escaping @Sendable () -> Root,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        _ bind: (inout Bindings) -> Void
    ) {
        var bindings = Bindings(location: SourceLocation(file: fileID, line: line, column: 1))
        bind(&bindings)
        self.name = name
        self.make = make
        self.setters = bindings.setters
        self.getters = bindings.getters
        self.nestedRegistrations = bindings.nested
        self.keyPathTests = bindings.keyPathTests
        self.location = SourceLocation(file: fileID, line: line, column: 1)
        self.sourcePath = filePath
        self.model = Model(name: name, properties: bindings.properties, location: location)
    }

    /// The properties of a typed model, bound one by one.
    public struct Bindings {
        fileprivate var properties: [Property] = []
        fileprivate var setters: [@Sendable (inout Root, Value, inout [ConversionFailure]) -> Void] = []
        fileprivate var getters: [@Sendable (Root) -> Value] = []
        fileprivate var nested: [@Sendable (inout Definitions) -> Void] = []
        fileprivate var keyPathTests: [@Sendable (AnyKeyPath) -> Bool] = []
        fileprivate let location: SourceLocation

        fileprivate init(location: SourceLocation) {
            self.location = location
        }

        /// Binds the property `name` to `keyPath`; its model type is `V.mappingType`.
        public mutating func bind<V: MappableValue>(
            _ name: String, _ keyPath: any WritableKeyPath<Root, V> & Sendable, line: Int = #line
        ) {
            // The existential opened once, here: each call then projects a concrete key path.
            // (It was given as Sendable; the concrete type only forgets saying so.)
            nonisolated(unsafe) let path: WritableKeyPath<Root, V> = keyPath
            add(name, keyPath, line: line) { root, value, failures in
                root[keyPath: path].update(from: value, failures: &failures)
            }
        }

        /// `bind(_:_:line:)` with the property's update written out, as `@MappedModel` writes it
        /// (`{ $0.name.update(from: $1, failures: &$2) }`): compiled in the host for its own
        /// types, so that mapping projects no key path per record. `keyPath` still names the
        /// property for reverse mapping and for `propertyName(boundTo:)`.
        public mutating func bind<V: MappableValue>(
            _ name: String, _ keyPath: any WritableKeyPath<Root, V> & Sendable, line: Int = #line,
            update: @escaping @Sendable (inout Root, Value, inout [ConversionFailure]) -> Void
        ) {
            add(name, keyPath, line: line, update: update)
        }

        private mutating func add<V: MappableValue>(
            _ name: String, _ keyPath: any WritableKeyPath<Root, V> & Sendable, line: Int,
            update: @escaping @Sendable (inout Root, Value, inout [ConversionFailure]) -> Void
        ) {
            var at = location
            at.line = line
            properties.append(Property(name: name, type: V.mappingType, location: at))
            setters.append { root, value, failures in
                let before = failures.count
                update(&root, value, &failures)
                // What the property's value added is below it: `.name` before its own path.
                if failures.count > before {
                    for index in before..<failures.count {
                        failures[index].relativePath = "." + name + failures[index].relativePath
                    }
                }
            }
            nonisolated(unsafe) let path: WritableKeyPath<Root, V> = keyPath
            getters.append { root in root[keyPath: path].mappingValue }
            nested.append { definitions in V.registerModels(in: &definitions) }
            keyPathTests.append { $0 == keyPath }
        }

        /// A property whose type is no `MappableValue` cannot be bound; this overload is here so
        /// that the compiler says what to do instead of offering `MappableValue`'s stubs.
        @available(
            *, unavailable,
            message:
                "the property's type is not a MappableValue: make it a model (@MappedModel from MappingsMacros, or MappedModel with a TypedModel), declare a RawRepresentable enum MappableValue, or leave the property out (@MappedIgnored)"
        )
        public mutating func bind<V>(
            _ name: String, _ keyPath: any WritableKeyPath<Root, V> & Sendable, line: Int = #line
        ) {
            fatalError("unavailable")
        }

        /// Sets a property from its mapped value: what the setters `@MappedModel` writes call,
        /// compiled in the host for the property's type.
        @inlinable
        public static func set<V: MappableValue>(
            _ property: inout V, from value: Value, failures: inout [ConversionFailure]
        ) {
            property.update(from: value, failures: &failures)
        }

        /// A property whose type is no `MappableValue`: the compiler says what to do.
        @available(
            *, unavailable,
            message:
                "the property's type is not a MappableValue: make it a model (@MappedModel from MappingsMacros, or MappedModel with a TypedModel), declare a RawRepresentable enum MappableValue, or leave the property out (@MappedIgnored)"
        )
        public static func set<V>(_ property: inout V, from value: Value, failures: inout [ConversionFailure]) {
            fatalError("unavailable")
        }

        /// The same, for the form `@MappedModel` writes.
        @available(
            *, unavailable,
            message:
                "the property's type is not a MappableValue: make it a model (@MappedModel from MappingsMacros, or MappedModel with a TypedModel), declare a RawRepresentable enum MappableValue, or leave the property out (@MappedIgnored)"
        )
        public mutating func bind<V>(
            _ name: String, _ keyPath: any WritableKeyPath<Root, V> & Sendable, line: Int = #line,
            update: @escaping @Sendable (inout Root, Value, inout [ConversionFailure]) -> Void
        ) {
            fatalError("unavailable")
        }
    }

    /// Sets every property of `root` from a mapped object of this model; a property whose
    /// value is unset keeps its value. Values that do not fit are added to `failures`, with
    /// their property path (`.kind`).
    public func update(_ root: inout Root, from value: Value, failures: inout [ConversionFailure]) {
        // The catalog holds this very model when the type is registered: no name to compare then.
        guard case .object(let object) = value, object.model.isIdentical(to: model) || object.model.name == name,
            object.slots.count == setters.count
        else {
            failures.append(ConversionFailure(message: "expected a \(name), found \(value.kindName)"))
            return
        }
        // Indexes, not `enumerated()`: this generic code runs unspecialized, where an iterator
        // of a generic sequence looks its type up at every step.
        var slot = 0
        while slot < setters.count {
            setters[slot](&root, object.slots[slot], &failures)
            slot += 1
        }
    }

    /// The name of the property bound to `keyPath`, or `nil` when none is.
    func propertyName(boundTo keyPath: AnyKeyPath) -> String? {
        keyPathTests.firstIndex { $0(keyPath) }.map { model.properties[$0].name }
    }

    /// A new instance from a mapped object of this model.
    public func instance(from value: Value, failures: inout [ConversionFailure]) -> Root {
        var root = make()
        update(&root, from: value, failures: &failures)
        return root
    }

    /// The instance as a mapped object: what reverse mapping writes, and what mapping into it starts from.
    public func value(of root: Root) -> Value {
        var object = ModelObject(model: model)
        var slot = 0
        while slot < getters.count {
            object.slots[slot] = getters[slot](root)
            slot += 1
        }
        return .object(object)
    }
}
