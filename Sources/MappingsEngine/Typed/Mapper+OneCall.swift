public import Foundation
public import MappingsCompiler
import MappingsJSON
import MappingsModel
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
        let entry = try typedContexts.entry(T.self, identifier, of: self)
        if let value = entry.planValue(data) {
            var failures: [ConversionFailure] = []
            let instance = T.mapping.instance(from: value, failures: &failures)
            if failures.isEmpty { return TypedMappingResult(value: instance, issues: []) }
        }
        return object(T.self, from: try Self.payload(data, demand: entry.context.demand), using: entry.context)
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

/// The contexts a mapper has checked for Swift types (`typedContext(_:_:)`) or looked up for
/// `decode`, by type and identifier, each with its plan for values: shared by a mapper's
/// copies, safe across threads. One lookup a call.
final class TypedContextCache: Sendable {
    private struct Key: Hashable {
        /// The Swift type the context was checked against; `nil` for `decode` (no check).
        let type: ObjectIdentifier?
        let identifier: String
        /// The mapper's default strictness, which the plan compiles in.
        let strict: Bool
    }

    /// A context and the plan `planValue(_:)` maps by (`nil`: the context has none for values).
    struct Entry: Sendable {
        let context: CompiledContext
        let plan: FastPlan?

        /// What the plan maps of a payload's bytes, or `nil` when the general engine must map it:
        /// the context has no plan for values, or the record is one the plan gives back (an
        /// issue, text that is not JSON).
        func planValue(_ data: Data) -> Value? {
            guard let plan else { return nil }
            return data.withUnsafeBytes { raw in plan.value(of: raw.bindMemory(to: UInt8.self)) }
        }
    }

    private let entries = Mutex<[Key: Entry]>([:])

    /// The context checked against `T` (or, with `type` `nil`, only looked up) and its plan.
    func entry(_ type: (any MappedModel.Type)?, _ identifier: String, of mapper: Mapper) throws(MappingsError)
        -> Entry
    {
        let key = Key(
            type: type.map { ObjectIdentifier($0) }, identifier: identifier, strict: mapper.convertsStrictlyByDefault)
        if let known = entries.withLock({ $0[key] }) { return known }
        let context: CompiledContext
        if let type {
            context = try Self.checked(type, identifier, mapper)
        } else {
            context = try mapper.context(identifier)
        }
        let plan: FastPlan?
        switch mapper.fastPlan(for: context) {
        case .success(let made) where made.buildsValues: plan = made
        default: plan = nil
        }
        let entry = Entry(context: context, plan: plan)
        entries.withLock { $0[key] = entry }
        return entry
    }

    private static func checked<T: MappedModel>(_ type: T.Type, _ identifier: String, _ mapper: Mapper)
        throws(MappingsError) -> CompiledContext
    {
        try mapper.typedContext(type, identifier)
    }

    /// The context checked against `T`.
    func context<T: MappedModel>(_ type: T.Type, _ identifier: String, of mapper: Mapper) throws(MappingsError)
        -> CompiledContext
    {
        try entry(type, identifier, of: mapper).context
    }
}
