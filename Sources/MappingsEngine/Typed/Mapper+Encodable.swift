import Foundation
public import MappingsCompiler
import MappingsJSON
import MappingsModel

/// `Encodable` types through a context, the reverse way (`mappings serialize`): the value is
/// encoded into the JSON shape the context's model writes (dates as ISO 8601 text, decimals
/// with their digits, URLs and UUIDs as text), read as that model's object, and the context
/// writes the payload it maps from.
/// ```swift
/// let payload = try mapper.encode(tweet, context: "$TweetModel")
/// payload.value.jsonText      // {"id_str":"1","text":"hello",…}
/// ```
extension Mapper {
    /// The payload the context maps `value` from; issues where the value does not fit the
    /// model or a rule cannot be reversed.
    ///
    /// - Throws: `MappingsError` when there is no such context (`.unknownName`), or `value`
    ///   cannot be encoded (`.invalidInput`, with what its `encode(to:)` threw).
    public func encode<T: Encodable>(_ value: T, context identifier: String) throws(MappingsError) -> MappingResult {
        let context = try self.context(identifier)
        let json: JSONValue
        do {
            let encoder = JSONValueEncoder()
            try value.encode(to: encoder)
            json = encoder.root.built
        } catch {
            throw MappingsError(
                kind: .invalidInput,
                diagnostics: [Diagnostic(message: "\(String(reflecting: T.self)) could not be encoded: \(error)")])
        }
        let object = existingObject(from: json, using: context)
        var result = payload(from: object.value, using: context)
        result.issues = object.issues + result.issues
        return result
    }
}

/// An `Encoder` that builds a `JSONValue`, writing the kinds a model reads back as the tool
/// writes them.
final class JSONValueEncoder: Encoder {
    /// A value being built: a scalar, or an object or array its containers fill.
    final class Node {
        var value: JSONValue = .null
        var members: [(key: String, node: Node)]?
        var elements: [Node]?

        var built: JSONValue {
            if let members { return .object(JSONObject(members.map { ($0.key, $0.node.built) })) }
            if let elements { return .array(elements.map(\.built)) }
            return value
        }
    }

    let root: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(root: Node = Node(), codingPath: [any CodingKey] = []) {
        self.root = root
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if root.members == nil { root.members = [] }
        return KeyedEncodingContainer(Keyed<Key>(node: root, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if root.elements == nil { root.elements = [] }
        return Unkeyed(node: root, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: root, codingPath: codingPath) }

    /// `value` as JSON: the kinds the tool writes in its own form, the rest by their `encode(to:)`.
    static func encode<T: Encodable>(_ value: T, into node: Node, codingPath: [any CodingKey]) throws {
        switch value {
        case let date as Date: node.value = .string(JSONWriter.iso8601(date))
        case let url as URL: node.value = .string(url.absoluteString)
        case let uuid as UUID: node.value = .string(uuid.uuidString)
        case let decimal as Decimal: node.value = JSONNumber(decimal.description).map(JSONValue.number) ?? .null
        case let json as JSONValue: node.value = json
        default: try value.encode(to: JSONValueEncoder(root: node, codingPath: codingPath))
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        func child(_ key: Key) -> Node {
            let child = Node()
            node.members?.removeAll { $0.key == key.stringValue }
            node.members?.append((key.stringValue, child))
            return child
        }

        func encodeNil(forKey key: Key) { child(key).value = .null }

        func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try JSONValueEncoder.encode(value, into: child(key), codingPath: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            JSONValueEncoder(root: child(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
        }

        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            JSONValueEncoder(root: child(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superEncoder() -> any Encoder { JSONValueEncoder(root: node, codingPath: codingPath) }

        func superEncoder(forKey key: Key) -> any Encoder {
            JSONValueEncoder(root: child(key), codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int { node.elements?.count ?? 0 }

        func child() -> Node {
            let child = Node()
            node.elements?.append(child)
            return child
        }

        func encodeNil() { child().value = .null }

        func encode<T: Encodable>(_ value: T) throws {
            try JSONValueEncoder.encode(value, into: child(), codingPath: codingPath)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
        {
            JSONValueEncoder(root: child(), codingPath: codingPath).container(keyedBy: keyType)
        }

        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            JSONValueEncoder(root: child(), codingPath: codingPath).unkeyedContainer()
        }

        func superEncoder() -> any Encoder { JSONValueEncoder(root: child(), codingPath: codingPath) }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        func encodeNil() { node.value = .null }
        func encode(_ value: Bool) { node.value = .bool(value) }
        func encode(_ value: String) { node.value = .string(value) }
        func encode(_ value: Double) { node.value = .double(value) }
        func encode(_ value: Float) { node.value = .double(Double(value)) }
        func encode(_ value: Int) { node.value = .integer(Int64(value)) }
        func encode(_ value: Int8) { node.value = .integer(Int64(value)) }
        func encode(_ value: Int16) { node.value = .integer(Int64(value)) }
        func encode(_ value: Int32) { node.value = .integer(Int64(value)) }
        func encode(_ value: Int64) { node.value = .integer(value) }
        func encode(_ value: UInt) { node.value = number(value) }
        func encode(_ value: UInt8) { node.value = .integer(Int64(value)) }
        func encode(_ value: UInt16) { node.value = .integer(Int64(value)) }
        func encode(_ value: UInt32) { node.value = .integer(Int64(value)) }
        func encode(_ value: UInt64) { node.value = number(value) }

        func number<I: BinaryInteger>(_ value: I) -> JSONValue {
            Int64(exactly: value).map(JSONValue.integer) ?? JSONNumber("\(value)").map(JSONValue.number) ?? .null
        }

        func encode<T: Encodable>(_ value: T) throws {
            try JSONValueEncoder.encode(value, into: node, codingPath: codingPath)
        }
    }
}
