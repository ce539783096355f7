public import MappingsCompiler
public import MappingsJSON
import MappingsModel

/// A mapping into a Swift type: the instance (as complete as it could be made) and the issues.
public struct TypedMappingResult<T> {
    /// The instance (or instances); a property no value reached keeps the value it was made with.
    public var value: T
    /// Every issue of the mapping, then those of values the Swift type could not take.
    public var issues: [MappingIssue]
    /// Whether the context's `@filter` dropped the payload: `value` is then an instance no
    /// value reached, and means nothing.
    public var filtered = false

    /// Whether an issue is an error (warnings alone leave it `false`).
    public var hasErrors: Bool { issues.contains { $0.severity == .error } }

    /// The issues that are errors, in order.
    public var errors: [MappingIssue] { issues.filter { $0.severity == .error } }

    /// The issues that are warnings, in order.
    public var warnings: [MappingIssue] { issues.filter { $0.severity == .warning } }
}

extension TypedMappingResult: Sendable where T: Sendable {}

/// Mapping into Swift types bound by a `TypedModel` (registered with `Definitions.register(_:)`).
///
/// The context maps as it would into a dynamic object (same conversions, defaults,
/// collection policies and issues), then the object's values are set through the type's key
/// paths. A value the Swift type cannot take (an enum without that raw value) is one more
/// issue, of kind `conversion failed`.
/// ```swift
/// let context = try mapper.typedContext(Tweet.self, "$TweetModel")
/// let result = mapper.object(Tweet.self, from: payload, using: context)
/// print(result.value.user.name, result.issues)
/// ```
extension Mapper {
    /// A new instance of `T` from a payload.
    package func object<T: MappedModel>(_ type: T.Type, from payload: JSONValue, context identifier: String)
        throws(MappingsError) -> TypedMappingResult<T>
    {
        object(type, from: payload, using: try typedContext(T.self, identifier))
    }

    /// A new instance of `T` from a payload, with a context checked once beforehand by
    /// `typedContext(_:_:)`: what a loop over many payloads should call.
    public func object<T: MappedModel>(_ type: T.Type, from payload: JSONValue, using context: CompiledContext)
        -> TypedMappingResult<T>
    {
        let result = object(from: payload, using: context)
        var issues = result.issues
        var failures: [ConversionFailure] = []
        let instance = T.mapping.instance(from: result.value, failures: &failures)
        if result.filtered { return TypedMappingResult(value: instance, issues: issues, filtered: true) }
        issues += materializationIssues(failures, context: context, base: "$")
        return TypedMappingResult(value: instance, issues: issues)
    }

    /// One new instance of `T` per element of a payload array.
    package func objects<T: MappedModel>(_ type: T.Type, from payload: JSONValue, context identifier: String)
        throws(MappingsError) -> TypedMappingResult<[T]>
    {
        objects(type, from: payload, using: try typedContext(T.self, identifier))
    }

    /// One new instance of `T` per element of a payload array, with a context checked once
    /// beforehand by `typedContext(_:_:)`.
    public func objects<T: MappedModel>(_ type: T.Type, from payload: JSONValue, using context: CompiledContext)
        -> TypedMappingResult<[T]>
    {
        let result = objects(from: payload, using: context)
        var issues = result.issues
        var instances: [T] = []
        if case .array(let values) = result.value {
            instances.reserveCapacity(values.count)
            for (index, value) in values.enumerated() {
                var failures: [ConversionFailure] = []
                instances.append(T.mapping.instance(from: value, failures: &failures))
                issues += materializationIssues(failures, context: context, base: "$[\(index)]")
            }
        }
        return TypedMappingResult(value: instances, issues: issues)
    }

    /// Populates an existing instance from a payload (AppCoreKit's `mapValue:toObject:`):
    /// untouched properties keep their values, nested models are updated in place (a class
    /// instance stays the same instance), collections are appended to unless the rule says
    /// `@clearContent`, or matched by `@identity` (the matched elements keep the properties the
    /// payload does not set).
    @discardableResult
    package func map<T: MappedModel>(_ payload: JSONValue, into existing: inout T, context identifier: String)
        throws(MappingsError) -> [MappingIssue]
    {
        map(payload, into: &existing, using: try typedContext(T.self, identifier))
    }

    /// Populates an existing instance from a payload, with a context checked once beforehand
    /// by `typedContext(_:_:)`.
    @discardableResult
    public func map<T: MappedModel>(_ payload: JSONValue, into existing: inout T, using context: CompiledContext)
        -> [MappingIssue]
    {
        var run = MappingRun(mapper: self)
        let name = run.rootName(context)
        // Dropped by the context's `@filter`: the instance stays as it was.
        guard run.keeps(context, payload, path: { "$" }, property: { name }) else { return run.issues }
        let value = run.build(
            context, from: payload, path: { "$" }, existing: existing.mappingValue, property: { name })
        var failures: [ConversionFailure] = []
        T.mapping.update(&existing, from: value, failures: &failures)
        return run.issues + materializationIssues(failures, context: context, base: "$")
    }

    /// The context `identifier`, checked to build `T`: it must name `T`'s model, and the
    /// catalog must hold that model as `T` binds it.
    public func typedContext<T: MappedModel>(_ type: T.Type, _ identifier: String) throws(MappingsError)
        -> CompiledContext
    {
        let context = try self.context(identifier)
        let typed = T.mapping
        guard context.model == typed.name else {
            throw MappingsError(
                kind: .unknownName,
                diagnostics: [
                    Diagnostic(
                        message:
                            "the context \"\(identifier)\" builds \(context.model.map { "\"\($0)\"" } ?? "a JSON object"), not \"\(typed.name)\" (\(String(reflecting: T.self)))",
                        location: context.provenance.location,
                        help: "map with a context whose \"@class\" is \"\(typed.name)\"")
                ])
        }
        let held = catalog.models[typed.name]
        let same =
            held.map { model in
                model.properties.count == typed.model.properties.count
                    && zip(model.properties, typed.model.properties).allSatisfy {
                        $0.name == $1.name && $0.type == $1.type
                    }
            } ?? false
        guard same else {
            throw MappingsError(
                kind: .unknownName,
                diagnostics: [
                    Diagnostic(
                        message:
                            "the catalog's model \"\(typed.name)\" is not the one \(String(reflecting: T.self)) binds",
                        location: held?.location,
                        help:
                            "register the Swift type when loading: definitions.register(\(String(reflecting: T.self)).self)"
                    )
                ])
        }
        return context
    }

    /// Issues for values the Swift type could not take, with the payload path the context
    /// read them from and the rule that did.
    private func materializationIssues(_ failures: [ConversionFailure], context: CompiledContext, base: String)
        -> [MappingIssue]
    {
        failures.map { failure in
            let origin = origin(of: failure.relativePath, in: context, base: base)
            return MappingIssue(
                kind: .conversionFailed, path: origin.path, property: (context.model ?? "JSON") + failure.relativePath,
                rule: origin.rule, value: nil, message: failure.message)
        }
    }
}
