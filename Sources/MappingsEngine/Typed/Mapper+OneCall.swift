public import Foundation
public import MappingsCompiler
import MappingsJSON
import Synchronization

/// Mapping a payload's bytes into a Swift type in one call: the context is looked up and
/// checked against the type once (then cached by the mapper), the text is read as the
/// context needs it, and the result is typed.
/// ```swift
/// let result = try mapper.map(data, to: Tweet.self, context: "$TweetModel")
/// print(result.value.message, result.errors)
/// let page = try mapper.map(data, to: [Tweet].self, context: "$TweetModel")
/// ```
/// A loop over many payloads that wants nothing looked up per payload keeps the two-step form:
/// `typedContext(_:_:)` once, then `object(_:from:using:)`.
extension Mapper {
    /// A new instance of `T` from a payload's JSON text.
    ///
    /// - Throws: `MappingsError` when there is no such context or it does not build `T`
    ///   (`.unknownName`), or the text is not JSON (`.invalidInput`, with its line and column).
    public func map<T: MappedModel>(_ data: Data, to type: T.Type, context identifier: String)
        throws(MappingsError) -> TypedMappingResult<T>
    {
        let context = try typedContexts.context(T.self, identifier, of: self)
        return object(T.self, from: try Self.payload(data, demand: context.demand), using: context)
    }

    /// One new instance of `T` per element of a payload array's JSON text.
    public func map<T: MappedModel>(_ data: Data, to type: [T].Type, context identifier: String)
        throws(MappingsError) -> TypedMappingResult<[T]>
    {
        let context = try typedContexts.context(T.self, identifier, of: self)
        let bytes = Array(data)
        let demand = JSONParser.firstByte(of: bytes) == UInt8(ascii: "[") ? context.demand : .everything
        return objects(T.self, from: try Self.payload(bytes, demand: demand), using: context)
    }

    /// Populates an existing instance from a payload's JSON text, as `map(_:into:using:)` does.
    @discardableResult
    public func map<T: MappedModel>(_ data: Data, into existing: inout T, context identifier: String)
        throws(MappingsError) -> [MappingIssue]
    {
        let context = try typedContexts.context(T.self, identifier, of: self)
        return map(try Self.payload(Array(data), demand: .everything), into: &existing, using: context)
    }

    /// The payload, read as `demand` says; text that is not JSON is an `.invalidInput` error.
    private static func payload(_ data: Data, demand: JSONDemand) throws(MappingsError) -> JSONValue {
        try payload(Array(data), demand: demand)
    }

    private static func payload(_ bytes: [UInt8], demand: JSONDemand) throws(MappingsError) -> JSONValue {
        try JSONValue(parsing: bytes, demand: demand, file: "<data>")
    }
}

/// The contexts a mapper has checked for Swift types (`typedContext(_:_:)`), by type and
/// identifier: shared by a mapper's copies, safe across threads.
final class TypedContextCache: Sendable {
    private struct Key: Hashable {
        let type: ObjectIdentifier
        let identifier: String
    }

    private let contexts = Mutex<[Key: CompiledContext]>([:])

    func context<T: MappedModel>(_ type: T.Type, _ identifier: String, of mapper: Mapper) throws(MappingsError)
        -> CompiledContext
    {
        let key = Key(type: ObjectIdentifier(type), identifier: identifier)
        if let known = contexts.withLock({ $0[key] }) { return known }
        let context = try mapper.typedContext(type, identifier)
        contexts.withLock { $0[key] = context }
        return context
    }
}
