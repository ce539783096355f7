public import Foundation
public import MappingsCompiler
public import MappingsJSON
import MappingsModel

/// A `Decodable` type decoded from what a context maps, with the mapping's issues.
public struct DecodedResult<T> {
    /// The decoded value; `nil` when `T` could not be decoded from the mapped value (an issue
    /// says why) or the context's `@filter` dropped the payload.
    public var value: T?
    /// The mapping's issues, then those of decoding (a key `T` needs that the mapping does
    /// not give, a value of another kind), each with its payload path and property.
    public var issues: [MappingIssue]
    /// Whether the context's `@filter` dropped the payload.
    public var filtered = false

    /// Whether an issue is an error (warnings alone leave it `false`).
    public var hasErrors: Bool { issues.contains { $0.severity == .error } }
    /// The issues that are errors, in order.
    public var errors: [MappingIssue] { issues.filter { $0.severity == .error } }
    /// The issues that are warnings, in order.
    public var warnings: [MappingIssue] { issues.filter { $0.severity == .warning } }
}

extension DecodedResult: Sendable where T: Sendable {}

/// `Codable` types through a context: the context maps the payload as usual, and `T` is
/// decoded from the mapped value itself (no JSON text in between), its `CodingKeys` matched
/// against the model's property names. Any `Decodable` type works, without conforming to
/// anything of this package.
/// ```swift
/// struct Tweet: Decodable { var identifier: String; var message: String; var createdAt: Date }
/// let result = try mapper.decode(Tweet.self, from: data, context: "$TweetModel")
/// result.value?.message
/// ```
/// Dates, URLs, UUIDs and decimals decode from the mapped values as they are (not from a
/// number or text in `JSONDecoder`'s strategies); a `JSON` property decodes into any
/// `Decodable` type, or into `JSONValue`.
extension Mapper {
    /// `T` decoded from what the context maps of a payload's JSON text.
    ///
    /// - Throws: `MappingsError` when there is no such context (`.unknownName`) or the text is
    ///   not JSON (`.invalidInput`). What `T` cannot take is an issue of the result.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, context identifier: String)
        throws(MappingsError) -> DecodedResult<T>
    {
        let entry = try typedContexts.entry(nil, identifier, of: self)
        if let value = entry.planValue(data) {
            return decode(type, from: MappingResult(value: value, issues: []), context: entry.context)
        }
        let payload = try JSONValue(parsing: Array(data), demand: entry.context.demand, file: "<data>")
        return decode(type, from: payload, using: entry.context)
    }

    /// `T` decoded from what a context, looked up once beforehand, maps of a payload.
    public func decode<T: Decodable>(_ type: T.Type, from payload: JSONValue, using context: CompiledContext)
        -> DecodedResult<T>
    {
        decode(type, from: object(from: payload, using: context), context: context)
    }

    /// `T` decoded from a context's result.
    private func decode<T: Decodable>(_ type: T.Type, from result: MappingResult, context: CompiledContext)
        -> DecodedResult<T>
    {
        if result.filtered { return DecodedResult(value: nil, issues: result.issues, filtered: true) }
        let root = context.model ?? context.identifier ?? "JSON"
        do {
            let value = try T(from: MappedValueDecoder(value: result.value, codingPath: []))
            return DecodedResult(value: value, issues: result.issues)
        } catch let error as DecodingError {
            return DecodedResult(
                value: nil, issues: result.issues + [decodingIssue(error, root: root, context: context)])
        } catch {
            let issue = MappingIssue(
                kind: .conversionFailed, path: "$", property: root, rule: context.provenance, value: nil,
                message: "\(String(reflecting: T.self)) could not be decoded: \(error)")
            return DecodedResult(value: nil, issues: result.issues + [issue])
        }
    }

    /// A decoding error as an issue with the payload path the context read the value from.
    private func decodingIssue(_ error: DecodingError, root: String, context: CompiledContext) -> MappingIssue {
        func relative(_ path: [any CodingKey]) -> String {
            path.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        }
        let kind: MappingIssue.Kind
        let relativePath: String
        let message: String
        switch error {
        case .keyNotFound(let key, let details):
            kind = .missingRequiredValue
            relativePath = relative(details.codingPath + [key])
            message =
                "the Swift type needs \"\(key.stringValue)\", which the mapped value does not have (map it in the context, or make the Swift property optional)"
        case .valueNotFound(let type, let details):
            kind = .missingRequiredValue
            relativePath = relative(details.codingPath)
            message = "the Swift type needs a \(type) here, and the mapped value is null"
        case .typeMismatch(let type, let details):
            kind = .conversionFailed
            relativePath = relative(details.codingPath)
            message = "the Swift type needs a \(type) here: \(details.debugDescription)"
        case .dataCorrupted(let details):
            kind = .conversionFailed
            relativePath = relative(details.codingPath)
            message = details.debugDescription
        @unknown default:
            kind = .conversionFailed
            relativePath = ""
            message = "\(error)"
        }
        let origin = origin(of: relativePath, in: context, base: "$")
        return MappingIssue(
            kind: kind, path: origin.path, property: root + relativePath, rule: origin.rule, value: nil,
            message: message)
    }
}

/// A `Decoder` over a mapped `Value`: objects by property name, arrays, dictionaries, and the
/// scalar kinds as they are.
struct MappedValueDecoder: Decoder {
    let value: Value
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .object(let object):
            // A model object is read by slot: no list of its members is made.
            return KeyedDecodingContainer(Keyed<Key>(object: object, members: [], codingPath: codingPath))
        case .dictionary(let dictionary):
            return KeyedDecodingContainer(Keyed<Key>(object: nil, members: dictionary.entries, codingPath: codingPath))
        case .json(.object(let object)):
            let members = object.members.map { ($0.key, Value(json: $0.value)) }
            return KeyedDecodingContainer(Keyed<Key>(object: nil, members: members, codingPath: codingPath))
        default:
            throw DecodingError.typeMismatch(
                [String: Any].self,
                DecodingError.Context(codingPath: codingPath, debugDescription: "found \(value.kindName)"))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let elements): return Unkeyed(elements: elements, codingPath: codingPath)
        case .json(.array(let elements)):
            return Unkeyed(elements: elements.map(Value.init(json:)), codingPath: codingPath)
        default:
            throw DecodingError.typeMismatch(
                [Any].self, DecodingError.Context(codingPath: codingPath, debugDescription: "found \(value.kindName)"))
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        Single(value: value, codingPath: codingPath)
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        /// A model object's properties, found by slot; else `members`.
        let object: ModelObject?
        let members: [(key: String, value: Value)]
        let codingPath: [any CodingKey]
        var allKeys: [Key] {
            if let object { return object.model.properties.compactMap { Key(stringValue: $0.name) } }
            return members.compactMap { Key(stringValue: $0.key) }
        }

        func find(_ key: Key) -> Value? {
            if let object { return object.model.slot(of: key.stringValue).map { object.slots[$0] } }
            let name = key.stringValue
            return members.first { $0.key == name }?.value
        }

        /// The value at `key` as a single value, its coding path made only if an error needs it.
        func single(_ key: Key) throws -> Single {
            guard let value = find(key) else { throw missing(key) }
            return Single(value: value, parentPath: codingPath, key: key)
        }

        /// The value at `key` unless it is missing or null.
        func present(_ key: Key) -> Single? {
            guard let value = find(key), !value.isNullish else { return nil }
            return Single(value: value, parentPath: codingPath, key: key)
        }

        // The kinds a synthesized `init(from:)` asks for by name, read straight from the value
        // (the generic forms would go through a decoder and a container of their own).
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try single(key).decode(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try single(key).decode(type) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try single(key).decode(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try single(key).decode(type) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
            try present(key)?.decode(type)
        }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key)?.decode(type) }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key)?.decode(type) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
            try present(key)?.decode(type)
        }

        func contains(_ key: Key) -> Bool { find(key) != nil }

        func decodeNil(forKey key: Key) throws -> Bool {
            guard let value = find(key) else { throw missing(key) }
            return value.isNullish
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try single(key).decode(type)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            try present(key)?.decode(type)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            guard let value = find(key) else { throw missing(key) }
            return try MappedValueDecoder(value: value, codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            guard let value = find(key) else { throw missing(key) }
            return try MappedValueDecoder(value: value, codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            if let object { return MappedValueDecoder(value: .object(object), codingPath: codingPath) }
            return MappedValueDecoder(value: .dictionary(ValueDictionary(members)), codingPath: codingPath)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            MappedValueDecoder(value: find(key) ?? .null, codingPath: codingPath + [key])
        }

        func missing(_ key: Key) -> DecodingError {
            .keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "no \"\(key.stringValue)\""))
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [Value]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        struct Index: CodingKey {
            let intValue: Int?
            var stringValue: String { "\(intValue ?? 0)" }
            init(_ index: Int) { intValue = index }
            init?(stringValue: String) { return nil }
            init?(intValue: Int) { self.intValue = intValue }
        }

        var atEnd: DecodingError {
            DecodingError.valueNotFound(
                Any.self, DecodingError.Context(codingPath: codingPath, debugDescription: "no more elements"))
        }

        mutating func next() throws -> (Value, [any CodingKey]) {
            guard !isAtEnd else { throw atEnd }
            defer { currentIndex += 1 }
            return (elements[currentIndex], codingPath + [Index(currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, elements[currentIndex].isNullish else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, path) = try next()
            return try Single(value: value, codingPath: path).decode(type)
        }

        /// The element as a single value, its coding path made only if an error needs it.
        mutating func single() throws -> Single {
            guard !isAtEnd else { throw atEnd }
            defer { currentIndex += 1 }
            return Single(value: elements[currentIndex], parentPath: codingPath, key: Index(currentIndex))
        }

        mutating func decode(_ type: String.Type) throws -> String { try single().decode(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try single().decode(type) }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try single().decode(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try single().decode(type) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            let (value, path) = try next()
            return try MappedValueDecoder(value: value, codingPath: path).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (value, path) = try next()
            return try MappedValueDecoder(value: value, codingPath: path).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let (value, path) = try next()
            return MappedValueDecoder(value: value, codingPath: path)
        }
    }

    struct Single: SingleValueDecodingContainer {
        let value: Value
        /// The container's path and the key it was read at: the coding path, joined when asked.
        let parentPath: [any CodingKey]
        let key: (any CodingKey)?
        var codingPath: [any CodingKey] { key.map { parentPath + [$0] } ?? parentPath }

        init(value: Value, codingPath: [any CodingKey]) {
            (self.value, self.parentPath, self.key) = (value, codingPath, nil)
        }

        init(value: Value, parentPath: [any CodingKey], key: any CodingKey) {
            (self.value, self.parentPath, self.key) = (value, parentPath, key)
        }

        func decodeNil() -> Bool { value.isNullish }

        func mismatch<T>(_ type: T.Type) -> DecodingError {
            if value.isNullish {
                return .valueNotFound(type, DecodingError.Context(codingPath: codingPath, debugDescription: "null"))
            }
            return .typeMismatch(
                type, DecodingError.Context(codingPath: codingPath, debugDescription: "found \(value.kindName)"))
        }

        func decode(_ type: Bool.Type) throws -> Bool {
            switch value {
            case .bool(let bool), .json(.bool(let bool)): return bool
            default: throw mismatch(type)
            }
        }

        func decode(_ type: String.Type) throws -> String {
            switch value {
            case .string(let string), .json(.string(let string)): return string
            case .url(let url): return url.absoluteString
            case .uuid(let uuid): return uuid.uuidString
            default: throw mismatch(type)
            }
        }

        func decode(_ type: Double.Type) throws -> Double {
            switch value {
            case .double(let double): return double
            case .int(let int): return Double(int)
            case .decimal(let decimal): return Double(decimal.text) ?? .nan
            case .json(let json):
                switch json {
                case .double(let double): return double
                case .integer(let integer): return Double(integer)
                case .number(let number): return number.double
                default: throw mismatch(type)
                }
            default: throw mismatch(type)
            }
        }

        func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

        func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
            let whole: Int64?
            switch value {
            case .int(let int): whole = Int64(int)
            case .json(.integer(let integer)): whole = integer
            case .decimal(let decimal):
                // A whole decimal in range (`2.00` is); its digits, not a double's.
                whole = decimal.digits.int64
            default: whole = nil
            }
            guard let whole else { throw mismatch(type) }
            guard let exact = I(exactly: whole) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: codingPath, debugDescription: "\(whole) does not fit \(type)"))
            }
            return exact
        }

        func decode(_ type: Int.Type) throws -> Int { try integer(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            // The common kinds without a dynamic cast (T is the very type: the bits are the value).
            switch value {
            case .string(let string) where T.self == String.self: return unsafeBitCast(string, to: T.self)
            case .int(let int) where T.self == Int.self: return unsafeBitCast(int, to: T.self)
            case .bool(let bool) where T.self == Bool.self: return unsafeBitCast(bool, to: T.self)
            case .date(let date) where T.self == Date.self: return unsafeBitCast(date, to: T.self)
            default:
                break
            }
            // The mapped kinds as they are, not through their own Codable forms.
            switch value {
            case .date(let date) where type == Date.self: return date as! T
            case .url(let url) where type == URL.self: return url as! T
            case .uuid(let uuid) where type == UUID.self: return uuid as! T
            case .decimal(let decimal) where type == Decimal.self: return decimal.decimal as! T
            case .int(let int) where type == Decimal.self: return Decimal(int) as! T
            case .json(let json) where type == JSONValue.self: return json as! T
            case .json(.number(let number)) where type == Decimal.self:
                guard let decimal = Decimal(string: number.literal, locale: Locale(identifier: "en_US_POSIX")) else {
                    throw mismatch(type)
                }
                return decimal as! T
            default:
                break
            }
            switch type {
            case is Bool.Type: return try decode(Bool.self) as! T
            case is String.Type: return try decode(String.self) as! T
            case is Double.Type: return try decode(Double.self) as! T
            case is Int.Type: return try decode(Int.self) as! T
            case is Int64.Type: return try decode(Int64.self) as! T
            default: return try T(from: MappedValueDecoder(value: value, codingPath: codingPath))
            }
        }
    }
}

extension Value {
    /// A JSON value as a mapped one: what `JSON` properties hold, read like the rest.
    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .integer(let integer): self = Int(exactly: integer).map(Value.int) ?? .json(json)
        case .double, .number: self = .json(json)
        case .string(let string): self = .string(string)
        case .array(let elements): self = .array(elements.map(Value.init(json:)))
        case .object(let object):
            self = .dictionary(ValueDictionary(object.members.map { ($0.key, Value(json: $0.value)) }))
        }
    }

    /// Null, or a JSON value that is null.
    var isNullish: Bool {
        switch self {
        case .null, .json(.null): true
        default: false
        }
    }

    /// The value's kind, for a message.
    var kindName: String {
        switch self {
        case .null: "null"
        case .string: "a string"
        case .int: "an integer"
        case .double: "a number"
        case .bool: "a boolean"
        case .decimal: "a decimal"
        case .url: "a URL"
        case .date: "a date"
        case .uuid: "a UUID"
        case .json(let json): "JSON \(json.typeName)"
        case .object: "an object"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }
}
