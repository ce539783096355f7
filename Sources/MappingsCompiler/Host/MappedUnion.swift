public import MappingsModel

/// A Swift type that holds one of several typed models: the Swift side of a union
/// (`"shapes": "[Circle | Rect]"`), usually an enum with one case per member.
///
/// ```swift
/// enum Shape: MappedUnion {
///     case circle(Circle)
///     case rect(Rect)
///     static let mapping = TypedUnion<Shape> { shape in
///         shape.member(Shape.circle) { if case .circle(let circle) = $0 { circle } else { nil } }
///         shape.member(Shape.rect) { if case .rect(let rect) = $0 { rect } else { nil } }
///     }
/// }
/// ```
/// Its mapping type is the union of the members' models (`Circle | Rect`); which member each
/// payload object becomes is chosen by the entry's `@discriminator` and `@cases`, and the
/// object's class picks the Swift case.
public protocol MappedUnion: MappableValue {
    /// The members, each a `MappedModel` with how it wraps into and unwraps from `Self`.
    static var mapping: TypedUnion<Self> { get }
}

extension MappedUnion {
    public static var mappingType: TypeReference { .union(mapping.members) }

    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> Self? {
        mapping.instance(from: value, failures: &failures)
    }

    public var mappingValue: Value { Self.mapping.value(of: self) }

    public static func registerModels(in definitions: inout Definitions) {
        for register in mapping.registrations { register(&definitions) }
    }
}

/// The members of a `MappedUnion`: for each, its typed model, how a mapped object of it
/// becomes the Swift value, and how the Swift value gives it back.
public struct TypedUnion<Root>: Sendable {
    /// The members' model names, in the order bound: the union's type.
    public let members: [String]
    private let wrappers: [@Sendable (Value, inout [ConversionFailure]) -> Root?]
    private let unwrappers: [@Sendable (Root) -> Value?]
    let registrations: [@Sendable (inout Definitions) -> Void]

    /// Declares the members of `Root`, in order.
    public init(_ bind: (inout Members) -> Void) {
        var members = Members()
        bind(&members)
        self.members = members.names
        self.wrappers = members.wrappers
        self.unwrappers = members.unwrappers
        self.registrations = members.registrations
    }

    /// The members of a union, bound one by one.
    public struct Members {
        fileprivate var names: [String] = []
        fileprivate var wrappers: [@Sendable (Value, inout [ConversionFailure]) -> Root?] = []
        fileprivate var unwrappers: [@Sendable (Root) -> Value?] = []
        fileprivate var registrations: [@Sendable (inout Definitions) -> Void] = []

        fileprivate init() {}

        /// Binds the member `M`: `wrap` makes the union's value of one (an enum case),
        /// `unwrap` gives it back when the value holds one (`nil` otherwise).
        public mutating func member<M: MappedModel>(
            _ wrap: @escaping @Sendable (M) -> Root, _ unwrap: @escaping @Sendable (Root) -> M?
        ) {
            names.append(M.mapping.name)
            wrappers.append { value, failures in M.mapped(from: value, failures: &failures).map(wrap) }
            unwrappers.append { root in unwrap(root)?.mappingValue }
            registrations.append { definitions in definitions.register(M.self) }
        }
    }

    /// The Swift value of a mapped object: the member whose model built it; a value of no
    /// member's model is a failure.
    public func instance(from value: Value, failures: inout [ConversionFailure]) -> Root? {
        guard case .object(let object) = value else {
            if case .null = value { return nil }
            failures.append(
                ConversionFailure(message: "expected \(TypeReference.union(members)), found \(value.kindName)"))
            return nil
        }
        guard let index = members.firstIndex(of: object.model.name) else {
            failures.append(
                ConversionFailure(
                    message: "expected \(TypeReference.union(members)), found a \(object.model.name)"))
            return nil
        }
        return wrappers[index](value, &failures)
    }

    /// The mapped object of a Swift value: the member it holds.
    public func value(of root: Root) -> Value {
        for unwrap in unwrappers {
            if let value = unwrap(root) { return value }
        }
        return .null
    }
}
