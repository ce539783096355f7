package import MappingsCompiler
import MappingsJSON
import MappingsModel

/// A context compiled for the JSON-out paths (`stream`, `map`): from a record's bytes straight
/// to the output bytes, without building a `JSONValue` or a `Value` for what it can copy.
///
/// The record is scanned once by the context's demand (`JSONTape`); each property of the
/// output object is then looked up by precomputed key indexes (no string at run time) and
/// written in the model's property order: strings, whole numbers, decimals, ISO dates,
/// booleans and defaults as byte runs, nested objects and collections of objects through their
/// own plans, every other value through the same conversion the general engine uses. The plan
/// is flat tables of integers and bytes: what it copies touches no reference count.
///
/// A plan only ever writes what the general engine would write: a record it cannot map cleanly
/// (an issue of any severity, invalid JSON, a key written with escapes) makes `write` return
/// `false` with `out` as it was, and the caller maps that record the general way, which
/// reports exactly what is wrong. A context the plan does not cover (see `FastPlan.make`) is
/// mapped the general way every time; `mappings check --explain-plan` says which and why.
///
/// A class: a record's mapping holds the plan by one reference, where a struct of its many
/// fields was copied (each retained and released) for every record.
package final class FastPlan: Sendable {
    let shape: TapeShape
    let tables: PlanTables
    let converter: Converter
    /// `converter`, strict: for the entries of contexts that convert strictly.
    let strictConverter: Converter
    /// The context's `@filter`, handed the record's text before anything is written.
    let filter: (call: PlanTables.Call, text: any TextTransformer)?
    /// Whether `prepare` makes calls ahead: the plan calls a transformer (or filters) that
    /// answers batches and prefers them (Lua in worker processes, where a call is a round trip).
    package let batchesCalls: Bool
    /// Whether `value(of:)` takes records: no transformer, filter or keyed selection.
    package let buildsValues: Bool
    /// Whether a call of the plan takes the record's text (a filter, a transformer that reads
    /// text): only then does the scan record what Lua views read through (`publishIndex(of:)`).
    let publishesIndex: Bool

    init(
        shape: TapeShape, tables: PlanTables, converter: Converter,
        filter: (call: PlanTables.Call, text: any TextTransformer)?
    ) {
        (self.shape, self.tables, self.filter) = (shape, tables, filter)
        self.converter = converter
        strictConverter = converter.strict(true)
        batchesCalls = Self.batchesCalls(filter: filter, tables: tables)
        buildsValues = Self.buildsValues(filter: filter, tables: tables)
        publishesIndex = filter != nil || tables.transformers.contains { $0.transform is any TextTransformer }
    }

    /// What `write` made of a record.
    package enum Outcome: Hashable {
        /// The output is appended.
        case written
        /// The context's `@filter` dropped the record: nothing is appended.
        case filtered
        /// Nothing is appended: the general engine maps the record (and reports what is wrong).
        case givenBack
    }

    /// Why a context is mapped by the general engine: the first reason found per entry.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        package var reasons: [String]
        package var description: String { reasons.joined(separator: "; ") }
    }

    /// The plan of `context`, or why it has none.
    package static func make(for context: CompiledContext, mapper: Mapper) -> Result<FastPlan, Refusal> {
        guard let shape = TapeShape(context.planDemand) else {
            let why: String
            if context.unknownKeys != nil {
                why = "\"@unknownKeys\" checks every key of the payload"
            } else if case .everything = context.planDemand {
                why = "an entry reads the whole payload (@self, an index, @first, @last, @count or a recursive context)"
            } else {
                why = "a nested context checks every key of its objects (\"@unknownKeys\")"
            }
            return .failure(Refusal(reasons: [why]))
        }
        var tables = PlanTables()
        var reasons: [String] = []
        let root = tables.addObject(
            context, strict: context.strictConversions ?? mapper.convertsStrictlyByDefault, demand: context.planDemand,
            catalog: mapper.catalog, place: context.identifier ?? "the context",
            reasons: &reasons)
        var filter: (call: PlanTables.Call, text: any TextTransformer)?
        if let reference = context.filter {
            if let transform = context.filterTransform, let text = transform as? any TextTransformer {
                filter = (PlanTables.Call(transform: transform, reference: reference, text: text), text)
            } else {
                reasons.append("its \"@filter\" is not bound to Lua that reads text")
            }
        }
        guard root == 0, reasons.isEmpty else { return .failure(Refusal(reasons: reasons)) }
        let converter = mapper.converter.independentCopy()
        return .success(
            FastPlan(shape: shape, tables: tables, converter: converter, filter: filter))
    }

    /// Whether an entry calls a transformer: the caller then hands `write` a memo, and the
    /// general engine the same memo for a record the plan gives back.
    package var callsTransformers: Bool { !tables.transformers.isEmpty || filter != nil }

    /// Appends the record's output to `out` and returns `true`; or returns `false`, `out`
    /// unchanged, when the record must be mapped the general way. The scan's scratch space is
    /// the calling thread's, kept from record to record. A plan that calls transformers needs
    /// `memo` (one per record; without it such records are all given back).
    package func write(
        _ bytes: [UInt8], into out: inout [UInt8], omittingNulls: Bool, memo: TransformerMemo? = nil
    ) -> Bool {
        bytes.withUnsafeBufferPointer { write($0, into: &out, omittingNulls: omittingNulls, memo: memo) }
    }

    /// `write(_:into:omittingNulls:memo:)` over a record's bytes in place (a line of a larger buffer).
    /// A record the context's `@filter` drops is given back (the general engine drops it too).
    package func write(
        _ buffer: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], omittingNulls: Bool,
        memo: TransformerMemo? = nil
    ) -> Bool {
        write(buffer, into: &out, omittingNulls: omittingNulls, memo: memo, filtering: true) == .written
    }

    /// `write(_:into:omittingNulls:memo:)`, telling a record the context's `@filter` dropped
    /// (`.filtered`) from one given back.
    package func write(
        _ buffer: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], omittingNulls: Bool,
        memo: TransformerMemo?, filtering: Bool
    ) -> Outcome {
        write(buffer, into: &out, omittingNulls: omittingNulls, memo: memo, tags: nil)
    }

    /// `write`, appending the record's tags by `tags` — their length (4 bytes), then the tags,
    /// what `tags.encoding` makes of the record's JSON — in place of the JSON.
    func writeTags(
        _ buffer: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], omittingNulls: Bool, memo: TransformerMemo?,
        _ tags: DirectTags
    ) -> Outcome {
        write(buffer, into: &out, omittingNulls: omittingNulls, memo: memo, tags: tags)
    }

    private func write(
        _ buffer: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], omittingNulls: Bool, memo: TransformerMemo?,
        tags: DirectTags?
    ) -> Outcome {
        let scratch = TapeScratch.current
        guard let root = scratch.tape.scan(buffer, shape: shape, recordingMatches: publishesIndex) else {
            return .givenBack
        }
        // The record's index, for the views of the Lua calls mapping it makes on this thread.
        if publishesIndex { scratch.tape.publishIndex(of: buffer) }
        defer { if publishesIndex { JSONTape.withdrawIndex() } }
        if let filter {
            guard let memo, case .frame = scratch.tape.nodes[Int(root)].kind else { return .givenBack }
            let node = scratch.tape.nodes[Int(root)]
            let text = UnsafeBufferPointer(rebasing: buffer[Int(node.start)..<Int(node.end)])
            // A filter that fails is an issue of the record: the general engine reports it.
            guard let answer = try? memo.call(filter.text, filter.call.reference, text: text) else { return .givenBack }
            switch answer {
            case .null, .bool(false): return .filtered
            default: break
            }
        }
        scratch.output.count = 0
        scratch.fanOuts.removeAll()
        let nodes = scratch.tape.nodes
        let written = tables.withPointers { pointers in
            guard case .frame = nodes[Int(root)].kind else { return false }
            guard let tags else {
                let writer = Writer<JSONOutput>(
                    bytes: buffer, nodes: nodes, slots: scratch.tape.slots, plan: pointers, owner: self,
                    omittingNulls: omittingNulls, memo: memo, scratch: scratch)
                return writer.object(0, frame: root, into: &scratch.output)
            }
            return tags.schema.nodes.withUnsafeBufferPointer { schemaNodes in
                tags.schema.names.withUnsafeBufferPointer { names in
                    let writer = Writer<TagOutput>(
                        bytes: buffer, nodes: nodes, slots: scratch.tape.slots, plan: pointers, owner: self,
                        omittingNulls: omittingNulls, memo: memo, scratch: scratch, tagNodes: schemaNodes,
                        tagNames: names, direct: tags)
                    // The frame's length goes first.
                    scratch.output.appendWord32(0)
                    guard writer.object(0, frame: root, into: &scratch.output) else { return false }
                    scratch.output.patchWord32(UInt32(truncatingIfNeeded: scratch.output.count - 4), at: 0)
                    return scratch.output.count - 4 <= Int(UInt32.max)
                }
            }
        }
        guard written else { return .givenBack }
        out.append(contentsOf: UnsafeBufferPointer(start: scratch.output.base, count: scratch.output.count))
        return .written
    }

    /// The direct tags of `schema` for this plan (`DirectTagEncoding.directSchema`), when the
    /// plan's objects follow the schema's structs field by field — as many fields, named as
    /// the plan's keys, of the kinds the plan writes itself (a string's field holds strings, an
    /// object's a struct, and so on) — so that what the plan writes is what `encoding` makes of
    /// the record's JSON; `nil` otherwise (the plan then writes JSON, which `encoding` reads).
    func directTags(_ schema: ValueSchema, _ encoding: any DirectTagEncoding) -> DirectTags? {
        let nodes = schema.nodes
        var followed = Set<Int64>()
        func follows(_ object: Int32, _ structure: Int) -> Bool {
            guard nodes.indices.contains(structure), nodes[structure].kind == .structure else { return false }
            guard followed.insert(Int64(object) << 32 | Int64(structure)).inserted else { return true }
            let planned = tables.objects[Int(object)]
            guard planned.count == nodes[structure].count else { return false }
            for offset in 0..<Int(planned.count) {
                let property = tables.properties[Int(planned.first) + offset]
                let fieldIndex = Int(nodes[structure].first) + offset
                guard nodes.indices.contains(fieldIndex) else { return false }
                let field = nodes[fieldIndex]
                // The key the plan writes, `"name":`, is the field's name in JSON.
                var key: [UInt8] = []
                JSONWriter.writeString(String(decoding: schema.name(fieldIndex), as: UTF8.self), into: &key)
                key.append(UInt8(ascii: ":"))
                let start = Int(property.keyStart)
                guard tables.bytes[start..<(start + Int(property.keyCount))].elementsEqual(key) else { return false }
                let element = Int(field.first)
                let fits: Bool
                switch property.kind {
                case .string, .url: fits = field.kind == .string
                case .int: fits = field.kind == .integer
                case .bool: fits = field.kind == .boolean
                case .decimal: fits = field.kind == .decimal
                case .strings:
                    fits = field.kind == .list && nodes.indices.contains(element) && nodes[element].kind == .string
                case .object: fits = follows(property.target, fieldIndex)
                case .objects: fits = field.kind == .list && follows(property.target, element)
                // Written as JSON text, which the encoding reads by the field's node.
                case .date, .formattedDate, .general, .unset: fits = true
                }
                guard fits else { return false }
            }
            return true
        }
        guard !tables.objects.isEmpty, follows(0, 0) else { return nil }
        return DirectTags(schema: schema, encoding: encoding)
    }
}

/// A `ValueSchema` a plan's objects follow field by field (`FastPlan.directTags`): the plan
/// writes a record's tags itself, and what it does not write itself (a date in a field of
/// another kind, a default, a transformer's answer, a converted value) `encoding` encodes from
/// its JSON text.
///
/// Each record mapper (and each of its independent copies) has its own: its schema is copied
/// into storage of its own, so that lanes do not count references on shared storage.
final class DirectTags: Sendable {
    let schema: ValueSchema
    let encoding: any DirectTagEncoding

    init(schema: ValueSchema, encoding: any DirectTagEncoding) {
        self.schema = ValueSchema(nodes: schema.nodes.map { $0 }, names: schema.names.map { $0 })
        self.encoding = encoding
    }
}

/// A plan's tables: objects, their properties slot by slot, key path steps, and the bytes of
/// encoded keys and defaults. Objects and properties refer to each other by index.
struct PlanTables: Sendable {
    /// One object: its properties are `properties[first..<first + count]`, one per model slot.
    struct Object {
        var first: Int32
        var count: Int32
    }

    /// How a property's value is written.
    enum Kind: UInt8 {
        /// No entry sets it: always unset.
        case unset
        /// A string copied as it came (re-escaped only when it holds escapes); anything else converts.
        case string
        /// A whole number, or a string of one, of at most 18 digits, written as the Int it is.
        case int
        /// `true` or `false` copied; anything else converts.
        case bool
        /// A number without an exponent, in at most 38 digits: copied, as Decimal keeps its digits.
        case decimal
        /// A date written `2012-08-29T14:40:05Z` (years 1 to 9999), copied once its fields are
        /// checked, when the entry has no `@dateFormat`; anything else converts.
        case date
        /// A date the entry's `@dateFormat` reads (its first format a pattern the library reads
        /// itself, not ICU), read from the string's bytes and written as the writer writes a
        /// date; a value that reads otherwise (another format, no date, an escape) converts.
        case formattedDate
        /// An `http` or `https` URL of plain characters (see `Writer.copiesURL`) copied as it
        /// came; any other string converts (through Foundation's parser).
        case url
        /// An array of strings, from an array or a fan-out, copied string by string; anything
        /// else (a null element, a number) converts.
        case strings
        /// Through `Converter`, as the general engine converts it (`general` is the index).
        case general
        /// An object mapped by a nested plan (`nested` is the object's index).
        case object
        /// An array of objects, each mapped by a nested plan.
        case objects
    }

    struct Property {
        var kind: Kind
        var isOptional: Bool
        /// Whether its context converts strictly: no fast path converts across JSON kinds.
        var strict = false
        /// `"name":` in `bytes`.
        var keyStart: Int32
        var keyCount: Int32
        /// The key paths (the first, then `@keyPath`'s fallbacks), in `paths`.
        var pathsStart: Int32
        var pathsCount: Int32
        /// The wanted-key index of a property read from one key of its frame (the usual entry:
        /// one key path of one key); -1 for any other.
        var single: Int32
        /// The default's output text in `bytes`; -1 when the entry has none.
        var defaultStart: Int32
        var defaultCount: Int32
        /// The nested object for `object`/`objects`, the conversion for the others.
        var target: Int32
        /// The entry's transformer in `transformers`; -1 when it has none.
        var transformer: Int32 = -1
        /// A keyed selection: its keys are `selections[selectionStart..<+selectionCount]`.
        var selectionStart: Int32 = 0
        var selectionCount: Int32 = 0
        /// The default in `defaults` (the typed path's), -1 when the entry has none.
        var defaultValue: Int32 = -1
        /// A transformer's answer of the property's own kind written as it is, without the
        /// general conversion: 1 a string into a `String`, 2 an integer into an `Int`, 3 a
        /// boolean into a `Bool`, 4 a float into a `Double`, 5 an array of strings into a
        /// `[String]`; 0 none (a value map, another type).
        var plainAnswer: UInt8 = 0
        /// An entry's `@lookup` of a column whose cell the plan writes from the table's bytes
        /// (`Writer.writesLookup`), in `lookups`; -1 for none (the general conversion looks up).
        var lookup: Int32 = -1
        /// The type that cell is written as: 1 `String`, 2 `Int`, 3 `Bool`.
        var lookupCell: UInt8 = 0
    }

    /// One key of a keyed selection: `"key":` in `bytes`, and its key paths in `paths`.
    struct Selected {
        var keyStart: Int32
        var keyCount: Int32
        var pathsStart: Int32
        var pathsCount: Int32
    }

    /// A transformer an entry calls, bound to its user data when the catalog loaded.
    struct Call: Sendable {
        var transform: any Transformer
        var reference: TransformerReference
        /// `transform` when it takes its input as text (found once, not per call).
        var text: (any TextTransformer)?
    }

    /// One key path: indexes among the wanted keys of each frame it goes through, in `steps`.
    struct Path {
        var stepsStart: Int32
        var stepsCount: Int32
    }

    /// The general conversion of one property, after its `@valueMap`.
    struct Conversion: Sendable {
        var type: TypeReference
        var dateFormats: DateFormats?
        var valueMap: ValueMap?
        /// `@lookup`: the value is a key, and what converts is its row's cell (or the row); a key
        /// with no row, or an empty cell, gives the record to the general engine, which reports it.
        var lookup: TableLookup?
        /// Whether the entry's context converts strictly (`"@conversions"`, inherited).
        var strict = false
    }

    var objects: [Object] = []
    /// Each object's model, by object index (the typed path builds `ModelObject`s of them).
    var models: [Model] = []
    /// The entries' defaults as values, for the typed path (`Property.defaultValue`).
    var defaults: [Value] = []
    var properties: [Property] = []
    var paths: [Path] = []
    var steps: [Int32] = []
    var bytes: [UInt8] = []
    var conversions: [Conversion] = []
    var transformers: [Call] = []
    var selections: [Selected] = []
    /// The `@lookup`s of a column the plan reads by bytes (`Property.lookup`).
    var lookups: [TableLookup] = []

    /// Unsafe views of the tables, for the length of one record.
    struct Pointers {
        let objects: UnsafeBufferPointer<Object>
        let properties: UnsafeBufferPointer<Property>
        let paths: UnsafeBufferPointer<Path>
        let steps: UnsafeBufferPointer<Int32>
        let bytes: UnsafeBufferPointer<UInt8>
        let conversions: UnsafeBufferPointer<Conversion>
        let transformers: UnsafeBufferPointer<Call>
        let selections: UnsafeBufferPointer<Selected>
        let lookups: UnsafeBufferPointer<TableLookup>
    }

    func withPointers<Result>(_ body: (Pointers) -> Result) -> Result {
        objects.withUnsafeBufferPointer { objects in
            properties.withUnsafeBufferPointer { properties in
                paths.withUnsafeBufferPointer { paths in
                    steps.withUnsafeBufferPointer { steps in
                        bytes.withUnsafeBufferPointer { bytes in
                            conversions.withUnsafeBufferPointer { conversions in
                                transformers.withUnsafeBufferPointer { transformers in
                                    selections.withUnsafeBufferPointer { selections in
                                        lookups.withUnsafeBufferPointer { lookups in
                                            body(
                                                Pointers(
                                                    objects: objects, properties: properties, paths: paths,
                                                    steps: steps, bytes: bytes, conversions: conversions,
                                                    transformers: transformers, selections: selections,
                                                    lookups: lookups))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private mutating func store(_ text: [UInt8]) -> (Int32, Int32) {
        defer { bytes += text }
        return (Int32(bytes.count), Int32(text.count))
    }

    /// Adds the plan of `context` over a value the scan reads by `demand` and returns its
    /// index; appends to `reasons` when an entry needs the general engine. `place` names the
    /// context in the reasons.
    mutating func addObject(
        _ context: CompiledContext, strict: Bool, demand: JSONDemand, catalog: Catalog, place: String,
        reasons: inout [String]
    ) -> Int32 {
        guard let model = context.modelDefinition else {
            reasons.append("\(place) builds a JSON object (no @class)")
            return -1
        }
        if context.unknownKeys != nil { reasons.append("\(place) checks unknown keys (\"@unknownKeys\")") }
        let index = Int32(objects.count)
        let first = properties.count
        objects.append(Object(first: Int32(first), count: Int32(model.properties.count)))
        models.append(model)
        for key in model.encodedKeys {
            let (start, count) = store(key)
            properties.append(
                Property(
                    kind: .unset, isOptional: true, keyStart: start, keyCount: count, pathsStart: 0, pathsCount: 0,
                    single: -1,
                    defaultStart: -1, defaultCount: 0, target: -1))
        }
        var set = Set<Int>()
        for rule in context.rules {
            let name = "\(place).\(rule.target)"
            guard rule.target.steps.count == 1, let slot = rule.target.steps[0].slot else {
                reasons.append("\(name): a dotted target property")
                continue
            }
            guard set.insert(slot).inserted else {
                reasons.append("\(name): more than one entry sets the property")
                continue
            }
            if let reason = addProperty(
                rule, at: first + slot, strict: strict, demand: demand, catalog: catalog, place: name)
            {
                reasons.append("\(name): \(reason)")
            }
        }
        return index
    }

    /// Fills in the property at `position` from `rule`; why it cannot, when it cannot.
    private mutating func addProperty(
        _ rule: Rule, at position: Int, strict: Bool, demand: JSONDemand, catalog: Catalog, place: String
    ) -> String? {
        guard let type = rule.type else { return "an untyped entry" }
        if let refusal = Self.refusal(of: rule) { return refusal }
        if let reference = rule.transformer, let transform = rule.transform {
            properties[position].transformer = Int32(transformers.count)
            transformers.append(
                Call(transform: transform, reference: reference, text: transform as? any TextTransformer))
        }
        let found: [[Int32]]
        let at: JSONDemand
        switch Self.keyPaths(of: rule, in: demand) {
        case .success(let paths): (found, at) = paths
        case .failure(let refusal): return refusal.reason
        }
        var property = properties[position]
        property.isOptional = rule.isOptional
        property.strict = strict
        if let object = rule.object {
            if let refusal = addObjects(
                object, of: rule, type: type, to: &property, strict: strict, demand: at, catalog: catalog, place: place)
            {
                return refusal
            }
        } else {
            if let refusal = addConversion(of: rule, type: type, to: &property, strict: strict) { return refusal }
        }
        if let value = rule.defaultValue, value != .null {
            if value.holdsObjects { return "a default holding objects" }
            var text: [UInt8] = []
            JSONWriter.write(value, into: &text)
            (property.defaultStart, property.defaultCount) = store(text)
            property.defaultValue = Int32(defaults.count)
            defaults.append(value)
        }
        property.pathsStart = Int32(paths.count)
        property.pathsCount = Int32(found.count)
        for path in found {
            paths.append(Path(stepsStart: Int32(steps.count), stepsCount: Int32(path.count)))
            steps += path
        }
        property.single = found.count == 1 && found[0].count == 1 && rule.selection == nil ? found[0][0] : -1
        if let selection = rule.selection { addSelection(selection, to: &property) }
        properties[position] = property
        return nil
    }

    /// Why an entry is not planned whatever its key paths: a feature plans do not cover.
    private static func refusal(of rule: Rule) -> String? {
        if let field = PlanFeatures.unknownFeature(of: rule) { return "\(field), an entry feature no plan knows" }
        if let reference = rule.transformer {
            guard rule.transform != nil else { return "a transformer (\(reference.displayName)) not bound" }
            if rule.object != nil { return "a transformer (\(reference.displayName)) on an @object entry" }
        }
        if rule.selection != nil, rule.object != nil { return "a keyed selection into an @object entry" }
        if let lookup = rule.lookup, rule.object != nil { return "@lookup \(lookup.text) into an @object entry" }
        if rule.policies.identity != nil { return "@identity" }
        if rule.policies.onElementError != .keep { return "@onElementError" }
        if rule.policies.null != .missing { return "@null: clear" }
        if rule.object != nil, !rule.fallbacks.isEmpty { return "fallback key paths to an object" }
        // (The loader refuses @valueMap beside @object; a plan would not apply it there.)
        if rule.object != nil, rule.valueMap != nil { return "@valueMap on an @object entry" }
        return nil
    }

    /// Why a key path is not planned.
    private struct Refusal: Error {
        let reason: String
    }

    /// Each key path of `rule`, as indexes into the wanted keys of each frame it goes through,
    /// and what the scan keeps where the first one ends (the fallbacks' ends are merged there or
    /// kept whole, as the demand says).
    private static func keyPaths(of rule: Rule, in demand: JSONDemand) -> Result<([[Int32]], JSONDemand), Refusal> {
        var found: [[Int32]] = []
        var at = demand
        // A keyed selection's key paths, each key's in a row; the text of each value is handed on.
        let keyPaths = rule.selection?.flatMap(\.paths) ?? [rule.source] + rule.fallbacks
        let takesText = rule.transform is any TextTransformer || rule.selection != nil
        for (offset, keyPath) in keyPaths.enumerated() {
            // `@self` is the frame itself: only a transformer that takes text takes it (the frame's span).
            if keyPath.components.isEmpty, !takesText { return .failure(Refusal(reason: "the key path @self")) }
            var path: [Int32] = []
            var end = demand
            for component in keyPath.components {
                guard case .key(let key) = component else {
                    return .failure(Refusal(reason: "the key path \(keyPath) uses an index, @first, @last or @count"))
                }
                guard case .members(let members, _) = end,
                    let index = members.firstIndex(where: { $0.key.hasSameCodePoints(as: key) })
                else {
                    return .failure(
                        Refusal(reason: "the key path \(keyPath) reads into a value another entry takes whole"))
                }
                path.append(Int32(index))
                end = members[index].demand
            }
            if offset == 0 { at = end }
            // A transformer's input is handed on as its text, whatever else reads into it.
            if rule.object == nil, !takesText, case .members = end {
                return .failure(Refusal(reason: "the value at \(keyPath) is also read into by another entry"))
            }
            found.append(path)
        }
        return .success((found, at))
    }

    /// An `@object` entry's objects: a nested plan of its context, over what the scan keeps at
    /// the entry's key path.
    private mutating func addObjects(
        _ object: ObjectRule, of rule: Rule, type: TypeReference, to property: inout Property, strict: Bool,
        demand at: JSONDemand, catalog: Catalog, place: String
    ) -> String? {
        guard object.union == nil else { return "a union" }
        guard let index = object.context else { return "an @object without a context" }
        if type.holdsCollections { return "a collection of collections" }
        switch type.unwrapped {
        case .model: property.kind = .object
        case .array(let element) where !element.isCollection: property.kind = .objects
        default: return "objects in a \(type)"
        }
        guard case .members = at else {
            return "its objects are read whole (a recursive context, or another entry reads \(rule.source) whole)"
        }
        let context = catalog.contexts[index]
        if context.filter != nil { return "its context filters its objects (\"@filter\")" }
        var reasons: [String] = []
        let nested = addObject(
            context, strict: context.strictConversions ?? strict, demand: at, catalog: catalog,
            place: context.identifier ?? place, reasons: &reasons)
        guard reasons.isEmpty else { return reasons.joined(separator: "; ") }
        property.target = nested
        return nil
    }

    /// A value's kind, how a transformer's answer of the property's own kind is written as it is,
    /// and its conversion.
    private mutating func addConversion(
        of rule: Rule, type: TypeReference, to property: inout Property, strict: Bool
    ) -> String? {
        switch type.unwrapped {
        case .string: property.kind = .string
        case .int: property.kind = .int
        case .bool: property.kind = .bool
        case .decimal: property.kind = .decimal
        case .date where rule.dateFormats == nil: property.kind = .date
        case .date where rule.dateFormats?.readsBytes == true: property.kind = .formattedDate
        case .array(.string): property.kind = .strings
        case .url: property.kind = .url
        case .union: return "a union without @object"
        // Models by property name, collections of collections, dictionaries: the general
        // conversion, as the general engine converts them.
        default: property.kind = .general
        }
        // A value map translates the value first, and a transformer's answer is a value of
        // its own: the general conversion does either.
        if rule.valueMap != nil || rule.transformer != nil || rule.selection != nil || rule.lookup != nil {
            property.kind = .general
        }
        if rule.valueMap == nil, rule.transformer != nil, rule.lookup == nil {
            switch type.unwrapped {
            case .string: property.plainAnswer = 1
            case .int: property.plainAnswer = 2
            case .bool: property.plainAnswer = 3
            case .double: property.plainAnswer = 4
            case .array(.string): property.plainAnswer = 5
            default: break
            }
        }
        if let lookup = rule.lookup, lookup.column != nil, rule.valueMap == nil, rule.transformer == nil,
            rule.selection == nil
        {
            addLookup(lookup, type: type, to: &property)
        }
        property.target = Int32(conversions.count)
        // Formats of the plan's own: lanes that each compile a plan share no reference count.
        conversions.append(
            Conversion(
                type: type, dateFormats: rule.dateFormats?.independentCopy(), valueMap: rule.valueMap,
                lookup: rule.lookup, strict: strict))
        return nil
    }

    /// An entry's `@lookup` of a column, read by bytes when its type is one the plan writes a
    /// cell as (`Writer.writesLookup`); any other type converts the cell the general way.
    private mutating func addLookup(_ lookup: TableLookup, type: TypeReference, to property: inout Property) {
        switch type.unwrapped {
        case .string: property.lookupCell = 1
        case .int: property.lookupCell = 2
        case .bool: property.lookupCell = 3
        default: return
        }
        property.lookup = Int32(lookups.count)
        lookups.append(lookup)
    }

    /// A keyed selection's keys (`"key":` each, stored once) and the key paths of each.
    private mutating func addSelection(_ selection: [SelectedKey], to property: inout Property) {
        property.selectionStart = Int32(selections.count)
        property.selectionCount = Int32(selection.count)
        var first = property.pathsStart
        for selected in selection {
            var key: [UInt8] = []
            JSONWriter.write(.string(selected.key), into: &key)
            key.append(UInt8(ascii: ":"))
            let (keyStart, keyCount) = store(key)
            selections.append(
                Selected(
                    keyStart: keyStart, keyCount: keyCount, pathsStart: first, pathsCount: Int32(selected.paths.count)))
            first += Int32(selected.paths.count)
        }
    }
}

extension Value {
    /// Whether the value holds model objects (whose output `--omit-nulls` changes).
    fileprivate var holdsObjects: Bool {
        switch self {
        case .object: true
        case .array(let elements): elements.contains { $0.holdsObjects }
        case .dictionary(let dictionary): dictionary.entries.contains { $0.value.holdsObjects }
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
