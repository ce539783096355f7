import MappingsJSON

/// A property's declared type, as written in `@models`: `String`, `UserModel`, `[String]`,
/// `[String: Int]`, `URL?`.
public indirect enum TypeReference: Sendable, Hashable, CustomStringConvertible {
    case string, int, double, bool, decimal, url, date, uuid, json
    /// A declared model, by name.
    case model(String)
    case array(TypeReference)
    /// A JSON object whose values are of one type; keys are strings.
    case dictionary(TypeReference)
    case optional(TypeReference)

    /// The scalar type names, as written.
    package static let scalars: [String: TypeReference] = [
        "String": .string, "Int": .int, "Double": .double, "Bool": .bool, "Decimal": .decimal,
        "URL": .url, "Date": .date, "UUID": .uuid, "JSON": .json,
    ]

    public var description: String {
        switch self {
        case .string: "String"
        case .int: "Int"
        case .double: "Double"
        case .bool: "Bool"
        case .decimal: "Decimal"
        case .url: "URL"
        case .date: "Date"
        case .uuid: "UUID"
        case .json: "JSON"
        case .model(let name): name
        case .array(let element): "[\(element)]"
        case .dictionary(let value): "[String: \(value)]"
        case .optional(let wrapped): "\(wrapped)?"
        }
    }

    /// The type without its optional wrapper.
    public var unwrapped: TypeReference {
        if case .optional(let wrapped) = self { return wrapped }
        return self
    }

    /// The type of the objects a collection of this type holds, or the type itself for a single value.
    public var elementType: TypeReference {
        switch unwrapped {
        case .array(let element): element.unwrapped
        case .dictionary(let value): value.unwrapped
        case let other: other
        }
    }

    /// Whether the type is an array (optional or not).
    public var isCollection: Bool {
        if case .array = unwrapped { return true }
        return false
    }

    /// Every model name the type mentions.
    package var modelNames: [String] {
        switch self {
        case .model(let name): [name]
        case .array(let inner), .dictionary(let inner), .optional(let inner): inner.modelNames
        default: []
        }
    }
}
