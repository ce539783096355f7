public import Foundation
public import MappingsJSON
public import MappingsModel

/// A Swift type a typed model's property can have: it names its model type, and converts
/// to and from the `Value` the engine maps.
///
/// The engine converts payload values to `mappingType` (with the same rules as for a
/// dynamic model); `mapped(from:failures:)` then only unwraps the result. The library
/// conforms `String`, `Int`, `Double`, `Bool`, `Decimal`, `ExactDecimal` (a decimal with the
/// digits and scale it was written with), `URL`, `Date`, `UUID`, `JSONValue`, optionals,
/// arrays, sets and `[String: T]` dictionaries of them, and every `MappedModel`. A
/// `RawRepresentable` type whose raw value is mappable (an enum of strings or integers)
/// conforms by declaring it: `enum Kind: String, MappableValue { case tweet, reply }`.
public protocol MappableValue: SendableMetatype {
    /// The type the engine converts payload values to, as a model declares it.
    static var mappingType: TypeReference { get }

    /// The Swift value for a mapped value. Returns `nil` to leave the property as it is: for
    /// `.null` (a missing value the mapping reported already, or an unset one), or when the
    /// value does not fit, after adding a failure (an enum without that raw value).
    static func mapped(from value: Value, failures: inout [ConversionFailure]) -> Self?

    /// The value as the engine holds it: what reverse mapping writes, and what mapping into an
    /// existing instance starts from.
    var mappingValue: Value { get }

    /// Sets this value from a mapped one; a model updates its properties in place (a class
    /// instance stays the same instance). The default replaces it with `mapped(from:failures:)`.
    mutating func update(from value: Value, failures: inout [ConversionFailure])

    /// Registers the models this type names (itself for a `MappedModel`, its element's for a
    /// collection); the default registers none.
    static func registerModels(in definitions: inout Definitions)
}

extension MappableValue {
    // Inlinable: specialized in the caller for its type (a `@MappedModel`'s setters), it needs
    // no metadata of `Self?` looked up at run time for each property set.
    @inlinable
    public mutating func update(from value: Value, failures: inout [ConversionFailure]) {
        if let new = Self.mapped(from: value, failures: &failures) { self = new }
    }

    public static func registerModels(in definitions: inout Definitions) {}

    /// The failure for a value that is not what `mappingType` converts to (never expected:
    /// the engine converted it).
    static func mismatch(_ value: Value, _ failures: inout [ConversionFailure]) -> Self? {
        if case .null = value { return nil }
        failures.append(ConversionFailure(message: "expected \(mappingType), found \(value.kindName)"))
        return nil
    }
}

extension String: MappableValue {
    public static var mappingType: TypeReference { .string }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> String? {
        if case .string(let string) = value { return string }
        return mismatch(value, &failures)
    }
    public var mappingValue: Value { .string(self) }
}

extension Int: MappableValue {
    public static var mappingType: TypeReference { .int }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> Int? {
        if case .int(let int) = value { return int }
        return mismatch(value, &failures)
    }
    public var mappingValue: Value { .int(self) }
}

extension Double: MappableValue {
    public static var mappingType: TypeReference { .double }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> Double? {
        switch value {
        case .double(let double): return double
        case .int(let int): return Double(int)
        default: return mismatch(value, &failures)
        }
    }
    public var mappingValue: Value { .double(self) }
}

extension Bool: MappableValue {
    public static var mappingType: TypeReference { .bool }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> Bool? {
        if case .bool(let bool) = value { return bool }
        return mismatch(value, &failures)
    }
    public var mappingValue: Value { .bool(self) }
}

extension Decimal: MappableValue {
    public static var mappingType: TypeReference { .decimal }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> Decimal? {
        switch value {
        case .decimal(let decimal): return decimal.decimal
        case .int(let int): return Decimal(int)
        default: return mismatch(value, &failures)
        }
    }
    /// As its `description` writes it (Foundation's decimal keeps no written scale; an
    /// `ExactDecimal` does).
    public var mappingValue: Value { ExactDecimal(self).map(Value.decimal) ?? .null }
}

extension ExactDecimal: MappableValue {
    public static var mappingType: TypeReference { .decimal }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> ExactDecimal? {
        switch value {
        case .decimal(let decimal): return decimal
        case .int(let int): return ExactDecimal(int)
        default: return mismatch(value, &failures)
        }
    }
    public var mappingValue: Value { .decimal(self) }
}

extension URL: MappableValue {
    public static var mappingType: TypeReference { .url }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> URL? {
        if case .url(let url) = value { return url }
        return mismatch(value, &failures)
    }
    public var mappingValue: Value { .url(self) }
}

extension Date: MappableValue {
    public static var mappingType: TypeReference { .date }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> Date? {
        if case .date(let date) = value { return date }
        return mismatch(value, &failures)
    }
    public var mappingValue: Value { .date(self) }
}

extension UUID: MappableValue {
    public static var mappingType: TypeReference { .uuid }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> UUID? {
        if case .uuid(let uuid) = value { return uuid }
        return mismatch(value, &failures)
    }
    public var mappingValue: Value { .uuid(self) }
}

extension JSONValue: MappableValue {
    public static var mappingType: TypeReference { .json }
    public static func mapped(from value: MappingsModel.Value, failures: inout [ConversionFailure]) -> JSONValue? {
        if case .json(let json) = value { return json }
        if case .null = value { return nil }
        var bytes: [UInt8] = []
        JSONWriter.write(value, into: &bytes)
        return try? JSONParser.parse(bytes)
    }
    public var mappingValue: MappingsModel.Value { .json(self) }
}

extension Optional: MappableValue where Wrapped: MappableValue {
    public static var mappingType: TypeReference {
        if case .optional = Wrapped.mappingType { return Wrapped.mappingType }
        return .optional(Wrapped.mappingType)
    }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.mapped(from: value, failures: &failures).map { .some($0) }
    }
    public var mappingValue: Value { self?.mappingValue ?? .null }
    public mutating func update(from value: Value, failures: inout [ConversionFailure]) {
        if case .null = value {
            self = nil
        } else if var wrapped = self {
            wrapped.update(from: value, failures: &failures)
            self = wrapped
        } else if let new = Wrapped.mapped(from: value, failures: &failures) {
            self = new
        }
    }
    public static func registerModels(in definitions: inout Definitions) { Wrapped.registerModels(in: &definitions) }
}

extension Array: MappableValue where Element: MappableValue {
    public static var mappingType: TypeReference { .array(Element.mappingType) }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> [Element]? {
        guard case .array(let values) = value else { return mismatch(value, &failures) }
        var elements: [Element] = []
        elements.reserveCapacity(values.count)
        for (index, item) in values.enumerated() {
            var inner: [ConversionFailure] = []
            if let element = Element.mapped(from: item, failures: &inner) { elements.append(element) }
            failures += inner.map {
                ConversionFailure(
                    relativePath: "[\(index)]" + $0.relativePath, message: $0.message, isMissingValue: $0.isMissingValue
                )
            }
        }
        return elements
    }
    public var mappingValue: Value { .array(map(\.mappingValue)) }
    public static func registerModels(in definitions: inout Definitions) { Element.registerModels(in: &definitions) }
}

extension Dictionary: MappableValue where Key == String, Value: MappableValue {
    public static var mappingType: TypeReference { .dictionary(Value.mappingType) }
    public static func mapped(from value: MappingsModel.Value, failures: inout [ConversionFailure]) -> [String: Value]?
    {
        guard case .dictionary(let dictionary) = value else { return mismatch(value, &failures) }
        var result: [String: Value] = [:]
        for (key, item) in dictionary.entries {
            var inner: [ConversionFailure] = []
            // Swift's String keys merge keys that differ only in Unicode normalization: say so.
            if result[key] != nil {
                failures.append(
                    ConversionFailure(
                        relativePath: "[\(PathText.quoted(key))]",
                        message: "the key \(PathText.quoted(key)) differs from another only in Unicode normalization, "
                            + "and a Swift dictionary holds one of them; the later value is not kept"))
                continue
            }
            if let element = Value.mapped(from: item, failures: &inner) { result[key] = element }
            failures += inner.map {
                ConversionFailure(
                    relativePath: "[\(PathText.quoted(key))]" + $0.relativePath, message: $0.message,
                    isMissingValue: $0.isMissingValue)
            }
        }
        return result
    }
    public var mappingValue: MappingsModel.Value {
        .dictionary(ValueDictionary(sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value.mappingValue) }))
    }
    public static func registerModels(in definitions: inout Definitions) { Value.registerModels(in: &definitions) }
}

extension MappableValue where Self: RawRepresentable, RawValue: MappableValue {
    public static var mappingType: TypeReference { RawValue.mappingType }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> Self? {
        guard let raw = RawValue.mapped(from: value, failures: &failures) else { return nil }
        if let found = Self(rawValue: raw) { return found }
        failures.append(
            ConversionFailure(
                message: "\(JSONWriter.messageText(value)) is not a raw value of \(String(reflecting: Self.self))"))
        return nil
    }
    public var mappingValue: Value { rawValue.mappingValue }
}

extension Value {
    /// The kind of value, as messages say it.
    var kindName: String {
        switch self {
        case .null: "null"
        case .string: "a string"
        case .int: "an Int"
        case .double: "a Double"
        case .bool: "a Bool"
        case .decimal: "a Decimal"
        case .url: "a URL"
        case .date: "a Date"
        case .uuid: "a UUID"
        case .json: "JSON"
        case .object(let object): "a \(object.model.name)"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }
}
