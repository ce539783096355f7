import MappingsJSON

/// A property's declared type, as written in `@models`: `String`, `UserModel`, `[String]`,
/// `[String: Int]`, `URL?`.
public indirect enum TypeReference: Sendable, Hashable, CustomStringConvertible {
    case string, int, double, bool, decimal, url, date, uuid, json
    /// A declared model, by name.
    case model(String)
    /// A declared string enum: one of its values, held as a string.
    case enumeration(Enumeration)
    case array(TypeReference)
    /// A JSON object whose values are of one type; keys are strings.
    case dictionary(TypeReference)
    case optional(TypeReference)
    /// One of several declared models (`Circle | Rect`), by name, in the order written: an
    /// entry's `@discriminator` and `@cases` choose which one each payload object builds.
    case union([String])
    /// A set, `{T}`: distinct values of one type, held as an array in a canonical order
    /// (strings by code points, numbers by value; other values as they came).
    case set(TypeReference)

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
        case .enumeration(let enumeration): enumeration.name
        case .array(let element): "[\(element)]"
        case .dictionary(let value): "[String: \(value)]"
        case .optional(.union(let members)): "(\(members.joined(separator: " | ")))?"
        case .optional(let wrapped): "\(wrapped)?"
        case .union(let members): members.joined(separator: " | ")
        case .set(let element): "{\(element)}"
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
        case .array(let element), .set(let element): element.unwrapped
        case .dictionary(let value): value.unwrapped
        case let other: other
        }
    }

    /// The members of the union the type holds (itself, or the values at the bottom of its
    /// collections: `[Circle | Rect]`, `[[Circle | Rect]]`, `[String: [Circle | Rect]]`); `nil`
    /// when it holds no union.
    public var unionMembers: [String]? {
        if case .union(let members) = innermostElement.unwrapped { return members }
        return nil
    }

    /// The type of the values at the bottom of nested collections: `Tweet` for `[[Tweet]]` and
    /// `[String: [Tweet]]`, what an `@object` builds.
    package var innermostElement: TypeReference {
        switch unwrapped {
        case .array(let element), .dictionary(let element), .set(let element): element.innermostElement
        case let other: other
        }
    }

    /// Whether the type is a collection of collections: `[[T]]`, `[String: [T]]`, `[[String: T]]`.
    package var holdsCollections: Bool {
        switch unwrapped {
        case .array(let element), .dictionary(let element):
            switch element.unwrapped {
            case .array, .dictionary: true
            default: false
            }
        default: false
        }
    }

    /// Whether values of the type hold decimals: `Decimal`, or a collection, dictionary or
    /// optional of them.
    package var holdsDecimals: Bool {
        switch self {
        case .decimal: true
        case .array(let element), .set(let element), .dictionary(let element), .optional(let element):
            element.holdsDecimals
        default: false
        }
    }

    /// Whether the type is an array or a set (optional or not).
    public var isCollection: Bool {
        switch unwrapped {
        case .array, .set: true
        default: false
        }
    }

    /// Every model name the type mentions.
    package var modelNames: [String] {
        switch self {
        case .model(let name): [name]
        case .union(let members): members
        case .array(let inner), .dictionary(let inner), .optional(let inner), .set(let inner): inner.modelNames
        default: []
        }
    }

    /// The type with each model name that names one of `enumerations` made that enum: the
    /// type parser reads every name it does not know as a model.
    package func resolvingEnumerations(_ enumerations: [String: Enumeration]) -> TypeReference {
        guard !enumerations.isEmpty else { return self }
        switch self {
        case .model(let name): return enumerations[name].map(TypeReference.enumeration) ?? self
        case .array(let inner): return .array(inner.resolvingEnumerations(enumerations))
        case .dictionary(let inner): return .dictionary(inner.resolvingEnumerations(enumerations))
        case .optional(let inner): return .optional(inner.resolvingEnumerations(enumerations))
        case .set(let inner): return .set(inner.resolvingEnumerations(enumerations))
        default: return self
        }
    }
}

extension TypeReference {
    /// Why a set this type holds cannot be one (a set holds single values: strings, numbers,
    /// Bool, Date, URL, UUID, enums), or `nil`: `a set holds single values, not Tweet`. Asked
    /// once enums are resolved, since the parser reads an enum's name as a model's.
    package var setProblem: String? {
        switch self {
        case .set(let element):
            switch element {
            case .model, .union, .array, .dictionary, .set, .json, .optional:
                return
                    "a set holds single values (String, Int, Double, Decimal, Bool, Date, URL, UUID or an enum), not \(element)"
            default: return nil
            }
        case .array(let inner), .dictionary(let inner), .optional(let inner): return inner.setProblem
        default: return nil
        }
    }
}
