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
        let context = try typedContexts.context(T.self, identifier, of: self)
        if let value = planValue(data, context: context) {
            var failures: [ConversionFailure] = []
            let instance = T.mapping.instance(from: value, failures: &failures)
            if failures.isEmpty { return TypedMappingResult(value: instance, issues: []) }
        }
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

    /// What `context` maps of a payload's bytes by its fast plan (the tape, no `JSONValue` of
    /// the record), or `nil` when the general engine must map it: the context has no plan for
    /// values, or the record is one the plan gives back (an issue, text that is not JSON).
    func planValue(_ data: Data, context: CompiledContext) -> Value? {
        guard let plan = typedContexts.plan(for: context, of: self) else { return nil }
        return data.withUnsafeBytes { raw in plan.value(of: raw.bindMemory(to: UInt8.self)) }
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

    /// A context's plan for values, by its index and the mapper's default strictness (a
    /// mapper's copies share this cache); `nil` inside for a context that has none.
    private struct PlanKey: Hashable {
        let index: Int
        let strict: Bool
    }

    private let plans = Mutex<[PlanKey: FastPlan?]>([:])

    /// The plan `planValue(_:context:)` maps by, made once per context.
    func plan(for context: CompiledContext, of mapper: Mapper) -> FastPlan? {
        let key = PlanKey(index: context.index, strict: mapper.convertsStrictlyByDefault)
        if let known = plans.withLock({ $0[key] }) { return known }
        let made: FastPlan?
        switch mapper.fastPlan(for: context) {
        case .success(let plan) where plan.buildsValues: made = plan
        default: made = nil
        }
        plans.withLock { $0[key] = .some(made) }
        return made
    }

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
