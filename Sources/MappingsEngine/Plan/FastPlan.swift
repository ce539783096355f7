package import MappingsCompiler
package import MappingsJSON
import MappingsModel

/// A context compiled for the JSON-out paths (`stream`, `map`): from a record's bytes straight
/// to the output bytes, without building a `JSONValue` or a `Value` for what it can copy.
///
/// The record is scanned once by the context's demand (`JSONTape`); each property of the
/// output object is then looked up by precomputed key indexes (no string at run time) and
/// written in the model's property order: strings without escapes, whole numbers, booleans
/// and defaults as byte runs, nested objects and collections of objects through their own
/// plans, every other value through the same conversion the general engine uses.
///
/// A plan only ever writes what the general engine would write: a record it cannot map cleanly
/// (an issue of any severity, invalid JSON, a key written with escapes) makes `write` return
/// `false` with `out` as it was, and the caller maps that record the general way, which
/// reports exactly what is wrong. A context the plan does not cover (see `FastPlan.make`) is
/// mapped the general way every time; `mappings check --explain-plan` says which and why.
package struct FastPlan: Sendable {
    let shape: TapeShape
    let root: ObjectPlan
    let converter: Converter

    /// Why a context is mapped by the general engine: the first reason found per entry.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        package var reasons: [String]
        package var description: String { reasons.joined(separator: "; ") }
    }

    /// The plan of `context`, or why it has none.
    package static func make(for context: CompiledContext, mapper: Mapper) -> Result<FastPlan, Refusal> {
        guard let shape = TapeShape(context.demand) else {
            let why =
                context.unknownKeys != nil
                ? "\"@unknownKeys\" checks every key of the payload"
                : "an entry reads the whole payload (@self, an index, @first, @last, @count or a recursive context)"
            return .failure(Refusal(reasons: [why]))
        }
        var reasons: [String] = []
        let root = ObjectPlan.make(
            context, demand: context.demand, catalog: mapper.catalog, place: context.identifier ?? "the context",
            reasons: &reasons)
        guard let root, reasons.isEmpty else { return .failure(Refusal(reasons: reasons)) }
        return .success(FastPlan(shape: shape, root: root, converter: mapper.converter))
    }

    /// Appends the record's output to `out` and returns `true`; or returns `false`, `out`
    /// unchanged, when the record must be mapped the general way. The scan's scratch space is
    /// the calling thread's, kept from record to record.
    package func write(_ bytes: [UInt8], into out: inout [UInt8], omittingNulls: Bool) -> Bool {
        let scratch = TapeScratch.current
        return write(bytes, into: &out, omittingNulls: omittingNulls, tape: &scratch.tape)
    }

    /// `write(_:into:omittingNulls:)` with a tape of the caller's.
    package func write(
        _ bytes: [UInt8], into out: inout [UInt8], omittingNulls: Bool, tape: inout JSONTape
    ) -> Bool {
        let mark = out.count
        let written = bytes.withUnsafeBufferPointer { buffer -> Bool in
            guard let root = tape.scan(buffer, shape: shape), tape.nodes[Int(root)].kind == .frame else {
                return false
            }
            let writer = Writer(
                bytes: buffer, tape: tape, converter: converter, omittingNulls: omittingNulls)
            return writer.object(self.root, frame: root, into: &out)
        }
        if !written { out.removeSubrange(mark...) }
        return written
    }
}

/// The plan of one object: per property slot of the model, how its value is found and written.
final class ObjectPlan: Sendable {
    /// `"name":` per slot, as the writer encodes it.
    let keys: [[UInt8]]
    /// Per slot, the entry that sets it; `nil` for a property no entry sets (always `null`).
    let properties: [PropertyPlan?]

    init(keys: [[UInt8]], properties: [PropertyPlan?]) {
        self.keys = keys
        self.properties = properties
    }

    /// The plan of `context` over a value the scan reads by `demand`; `nil`, with reasons, when
    /// an entry needs the general engine. `place` names the context in the reasons.
    static func make(
        _ context: CompiledContext, demand: JSONDemand, catalog: Catalog, place: String, reasons: inout [String]
    ) -> ObjectPlan? {
        guard let model = context.modelDefinition else {
            reasons.append("\(place) builds a JSON object (no @class)")
            return nil
        }
        if context.unknownKeys != nil { reasons.append("\(place) checks unknown keys (\"@unknownKeys\")") }
        var properties: [PropertyPlan?] = Array(repeating: nil, count: model.properties.count)
        for rule in context.rules {
            let name = "\(place).\(rule.target)"
            switch PropertyPlan.make(rule, demand: demand, catalog: catalog, place: name) {
            case .success(let property):
                guard properties[property.slot] == nil else {
                    reasons.append("\(name): more than one entry sets the property")
                    continue
                }
                properties[property.slot] = property
            case .failure(let refusal):
                reasons.append("\(name): \(refusal.reasons.joined(separator: "; "))")
            }
        }
        return reasons.isEmpty ? ObjectPlan(keys: model.encodedKeys, properties: properties) : nil
    }
}

/// How one property's value is found (key indexes through the scanned frames) and written.
/// A class: a plan's properties are read record after record, never copied.
final class PropertyPlan: Sendable {
    enum Conversion: Sendable {
        /// A string copied as it came (re-escaped only when it holds escapes); anything else converts.
        case string
        /// A whole number, or a string of one, of at most 18 digits, written as the Int it is;
        /// anything else converts.
        case int
        /// A date written `2012-08-29T14:40:05Z` (years 1 to 9999), copied once its fields are
        /// checked, when the entry has no `@dateFormat`; anything else converts.
        case date
        /// `true` or `false` copied; anything else converts.
        case bool
        /// A number written without an exponent, in at most 18 digits, as Decimal writes it;
        /// anything else converts.
        case decimal
        /// Through `Converter`, as the general engine converts it.
        case general
        /// An object mapped by a nested context.
        case object(ObjectPlan)
        /// An array of objects, each mapped by a nested context.
        case objects(ObjectPlan)
    }

    let slot: Int
    /// The index of each key of the key path among the wanted keys of the frame it reads.
    let steps: [Int32]
    let isOptional: Bool
    /// The default's output text, when the entry has one.
    let defaultText: [UInt8]?
    let conversion: Conversion
    let type: TypeReference
    let dateFormats: DateFormats?

    init(
        slot: Int, steps: [Int32], isOptional: Bool, defaultText: [UInt8]?, conversion: Conversion,
        type: TypeReference, dateFormats: DateFormats?
    ) {
        self.slot = slot
        self.steps = steps
        self.isOptional = isOptional
        self.defaultText = defaultText
        self.conversion = conversion
        self.type = type
        self.dateFormats = dateFormats
    }

    static func make(_ rule: Rule, demand: JSONDemand, catalog: Catalog, place: String)
        -> Result<PropertyPlan, FastPlan.Refusal>
    {
        func refuse(_ reason: String) -> Result<PropertyPlan, FastPlan.Refusal> {
            .failure(FastPlan.Refusal(reasons: [reason]))
        }
        guard rule.target.steps.count == 1, let slot = rule.target.steps[0].slot else {
            return refuse("a dotted target property")
        }
        guard let type = rule.type else { return refuse("an untyped entry") }
        if let reference = rule.transformer {
            return refuse("a transformer (\(reference.className).\(reference.functionName))")
        }
        if rule.valueMap != nil { return refuse("@valueMap") }
        if !rule.fallbacks.isEmpty { return refuse("fallback key paths") }
        if rule.policies.identity != nil { return refuse("@identity") }
        if rule.policies.onElementError != .keep { return refuse("@onElementError") }
        if rule.policies.null != .missing { return refuse("@null: clear") }
        // The key path, as indexes into the wanted keys of each frame it goes through.
        var steps: [Int32] = []
        var at = demand
        for component in rule.source.components {
            guard case .key(let key) = component else {
                return refuse("the key path \(rule.source) uses an index, @first, @last or @count")
            }
            guard case .members(let members, _) = at,
                let index = members.firstIndex(where: { $0.key.hasSameCodePoints(as: key) })
            else {
                return refuse("the key path \(rule.source) reads into a value another entry takes whole")
            }
            steps.append(Int32(index))
            at = members[index].demand
        }
        if rule.source.components.isEmpty { return refuse("the key path @self") }
        let conversion: Conversion
        if let object = rule.object {
            guard object.union == nil else { return refuse("a union") }
            guard let index = object.context else { return refuse("an @object without a context") }
            if type.holdsCollections { return refuse("a collection of collections") }
            let context = catalog.contexts[index]
            let isCollection: Bool
            switch type.unwrapped {
            case .model: isCollection = false
            case .array(let element) where !element.isCollection: isCollection = true
            default: return refuse("objects in a \(type)")
            }
            var reasons: [String] = []
            guard
                let nested = ObjectPlan.make(
                    context, demand: at, catalog: catalog, place: context.identifier ?? place, reasons: &reasons)
            else { return .failure(FastPlan.Refusal(reasons: reasons)) }
            conversion = isCollection ? .objects(nested) : .object(nested)
        } else {
            guard case .everything = at else {
                return refuse("the value at \(rule.source) is also read into by another entry")
            }
            switch type.unwrapped {
            case .string: conversion = .string
            case .int: conversion = .int
            case .bool: conversion = .bool
            case .decimal: conversion = .decimal
            case .date where rule.dateFormats == nil: conversion = .date
            case .model, .union, .dictionary, .set: return refuse("a \(type) value without @object")
            case .array(let element) where element.unwrapped.isCollection || element.isModelLike:
                return refuse("a \(type) value without @object")
            default: conversion = .general
            }
        }
        var defaultText: [UInt8]?
        if let value = rule.defaultValue, value != .null {
            var text: [UInt8] = []
            JSONWriter.write(value, into: &text)
            defaultText = text
            if value.holdsObjects { return refuse("a default holding objects") }
        }
        return .success(
            PropertyPlan(
                slot: slot, steps: steps, isOptional: rule.isOptional, defaultText: defaultText,
                conversion: conversion, type: type, dateFormats: rule.dateFormats))
    }
}

extension Value {
    /// Whether the value holds model objects or dictionaries (whose output `--omit-nulls` changes).
    fileprivate var holdsObjects: Bool {
        switch self {
        case .object, .dictionary: true
        case .array(let elements): elements.contains { $0.holdsObjects }
        default: false
        }
    }
}

extension TypeReference {
    /// Whether values of this type are models or unions (which a plan builds only through a context).
    fileprivate var isModelLike: Bool {
        switch unwrapped {
        case .model, .union: true
        default: false
        }
    }
}

extension Mapper {
    /// The fast plan of `context` for the JSON-out paths, or why it has none (see `FastPlan`).
    package func fastPlan(for context: CompiledContext) -> Result<FastPlan, FastPlan.Refusal> {
        FastPlan.make(for: context, mapper: self)
    }
}
