public import MappingsCompiler
import MappingsJSON
public import MappingsModel

/// One reverse mapping: writes an object back into the payload shape a context reads.
///
/// Each rule reads its target property and writes it at its source key path, in rule order:
/// nested objects go back through their own contexts, dates with `@dateFormat` are written
/// with their first format (other values as the JSON output writes them: dates in ISO 8601,
/// URLs as strings, decimals with their digits), a value `@valueMap` translated is written
/// back as its key (before the reverse transformer, which undoes what came first), and a
/// transformer's value goes through its reverse transformer. `@count` cannot be said back: such a rule is left out, and
/// `Mapper.reverseNotes(for:)` says so when the catalog loads.
struct ReverseRun {
    let mapper: Mapper
    var issues: [MappingIssue] = []
    /// `serialize --nulls`: an unset property is written as `null` at its key path, not left out.
    var writesNulls = false

    init(mapper: Mapper) {
        self.mapper = mapper
    }

    /// The payload for `object`, as `context` would read it; `path` is where it stands in the
    /// payload being written (issues name it).
    ///
    /// Rules whose key paths share a prefix write into one payload object or array: shorter
    /// paths first, so that a fan-out path (`labels.name`) writes into the elements of the
    /// array an entry for `labels` wrote. Two rules that would write different values at one
    /// place are an issue naming both.
    mutating func payload(
        for object: Value, with context: CompiledContext, path: () -> String, property: () -> String
    ) -> Value {
        var out = Value.null
        var writers: [String: Rule] = [:]
        let objectsOnly = PayloadWriter.objectsOnly(context.rules)
        for rule in Self.writingOrder(context.rules) where !rule.isForwardOnly {
            guard let value = Target.value(at: rule.target.steps[...], in: object) else { continue }
            if case .null = value, !writesNulls || rule.source.components.contains(.count) { continue }
            func name() -> String { property() + "." + rule.target.description }
            func at() -> String { rule.source.payloadPath(from: path()) }
            guard var written = value == .null ? .json(.null) : json(value, rule: rule, path: at, property: name)
            else { continue }
            if rule.transformer != nil, value != .null {
                guard let reversed = reverseTransformed(written, of: value, rule: rule, path: at, property: name) else {
                    continue
                }
                written = reversed
            }
            if let selection = rule.selection {
                write(
                    selection, of: written, value: value, rule: rule, into: &out, writers: &writers,
                    objectsOnly: objectsOnly, path: path, at: at, property: name)
                continue
            }
            guard !rule.source.components.contains(.count) else { continue }
            var components = rule.source.components[...]
            // A collection read through a fan-out goes back as the array of objects it came from.
            if Self.fansOut(rule, among: context.rules), case .array(let elements) = PayloadWriter.expanded(written),
                case .key(let last)? = components.last
            {
                written = .array(
                    elements.map { element in
                        if case .null = element, !writesNulls { return .dictionary(ValueDictionary()) }
                        return .dictionary(ValueDictionary([(last, element)]))
                    })
                components = components.dropLast()
            }
            var writer = PayloadWriter(rule: rule, property: name(), writers: writers, objectsOnly: objectsOnly)
            writer.write(written, at: components, into: &out, path: path())
            writers = writer.writers
            issues += writer.issues
        }
        if case .null = out { return .dictionary(ValueDictionary()) }
        return Self.ordered(
            out, as: context.rules.flatMap { rule in rule.selection?.map(\.paths[0].keys) ?? [rule.source.keys] },
            prefix: [])
    }

    /// What a rule's reverse transformer makes of the value written back; `nil` after reporting
    /// that it has none, or that it failed.
    private mutating func reverseTransformed(
        _ written: Value, of value: Value, rule: Rule, path at: () -> String, property name: () -> String
    ) -> Value? {
        guard let reference = rule.transformer else { return written }
        guard let reverse = rule.reverseTransform else {
            report(
                rule, path: at(), property: name(), value: value,
                message:
                    "\(reference.displayName) has no reverse transformer (\(reference.inline == nil ? "\"@reverseTransformSelector\"" : "\"@reverseLua\"")): \(name()) is left out (an entry that is never serialized says \"@reverse\": false)"
            )
            return nil
        }
        do {
            var output = try reverse.transform(Self.jsonValue(written), userData: reference.userData)
            // An empty Lua table of no kind is the empty collection a collection property needs.
            if case .object(let object) = output, object.isKindlessEmpty, rule.type?.isCollection == true {
                output = .array([])
            }
            return .json(output)
        } catch {
            report(
                rule, path: at(), property: name(), value: value,
                message:
                    "\(rule.reverseTransformer?.displayName ?? reference.displayName) failed: \(error.transformerReason)"
            )
            return nil
        }
    }

    /// A keyed selection writes each of its keys' values back where that key's first key path reads.
    private mutating func write(
        _ selection: [SelectedKey], of written: Value, value: Value, rule: Rule, into out: inout Value,
        writers: inout [String: Rule], objectsOnly: Set<[PayloadKeyPath.Component]>, path: () -> String,
        at: () -> String, property name: () -> String
    ) {
        let members: [(key: String, value: Value)]
        switch written {
        case .json(.object(let object)): members = object.members.map { ($0.key, .json($0.value)) }
        case .dictionary(let dictionary): members = dictionary.entries.map { ($0.key, $0.value) }
        default:
            report(
                rule, path: at(), property: name(), value: value,
                message:
                    "the keyed selection \(selection.description) writes back an object of its keys, but \(name()) is \(Converter.describe(Self.jsonValue(written))): it is left out"
            )
            return
        }
        for selected in selection {
            guard let member = members.first(where: { $0.key == selected.key }) else { continue }
            var writer = PayloadWriter(rule: rule, property: name(), writers: writers, objectsOnly: objectsOnly)
            writer.write(member.value, at: selected.paths[0].components[...], into: &out, path: path())
            writers = writer.writers
            issues += writer.issues
        }
    }

    /// Whether serialize writes a rule's collection as an array of objects at the key before
    /// its key path's last (`labels.name` → `{"labels": [{"name": "bug"}, …]}`), the shape APIs
    /// send and a fan-out reads: `@reverseFanOut` says; else a collection of single values read
    /// through two keys or more does, unless another entry of the context reads below that key
    /// anything but such collections (a single value, an index, a collection of objects) or reads
    /// the key itself as no collection: a collection of objects, or one beside single values, is
    /// more often an array nested in an object (`data.items`).
    static func fansOut(_ rule: Rule, among rules: [Rule]) -> Bool {
        let components = rule.source.components
        guard components.count >= 2,
            components.suffix(2).allSatisfy({ if case .key = $0 { true } else { false } })
        else { return false }
        if let chosen = rule.reverseFanOut { return chosen }
        switch rule.type?.unwrapped {
        case .array(let element)?, .set(let element)?: guard isSingleValue(element) else { return false }
        default: return false
        }
        let prefix = Array(components.dropLast())
        for other in rules where other.source.components != components {
            let path = other.source.components
            guard path.starts(with: prefix) else { continue }
            if path.count == prefix.count {
                // The array itself, read whole: a collection.
                guard other.type?.isCollection == true else { return false }
            } else if case .key = path[prefix.count] {
                // A sibling fan-out (`labels.color` beside `labels.name`): a collection of single values.
                switch other.type?.unwrapped {
                case .array(let element)?, .set(let element)?: guard isSingleValue(element) else { return false }
                default: return false
                }
            } else {
                return false
            }
        }
        return true
    }

    /// Whether a collection's element is a single value (not an object, a collection or JSON).
    private static func isSingleValue(_ type: TypeReference) -> Bool {
        switch type.unwrapped {
        case .string, .int, .double, .decimal, .bool, .url, .date, .uuid, .enumeration: true
        default: false
        }
    }

    /// The payload with each object's members in the order the context's entries read them
    /// (the first entry whose key path goes through a member places it); what no key path names
    /// (a discriminator) keeps its place after them. Rules write shorter key paths first, which
    /// would otherwise move a nested member (`properties.name`) after later ones.
    static func ordered(_ value: Value, as paths: [[String]], prefix: [String]) -> Value {
        switch value {
        case .dictionary(let dictionary):
            func rank(_ key: String) -> Int {
                paths.firstIndex { $0.count > prefix.count && $0.starts(with: prefix) && $0[prefix.count] == key }
                    ?? Int.max
            }
            let entries = dictionary.entries.enumerated().sorted {
                (rank($0.element.key), $0.offset) < (rank($1.element.key), $1.offset)
            }.map { ($0.element.key, ordered($0.element.value, as: paths, prefix: prefix + [$0.element.key])) }
            return .dictionary(ValueDictionary(entries))
        case .array(let elements):
            // A key path's keys apply to each element of an array it meets.
            return .array(elements.map { ordered($0, as: paths, prefix: prefix) })
        default:
            return value
        }
    }

    /// The rules in the order they write: by the length of their key paths, then as written.
    private static func writingOrder(_ rules: [Rule]) -> [Rule] {
        rules.enumerated().sorted {
            ($0.element.source.components.count, $0.offset) < ($1.element.source.components.count, $1.offset)
        }.map(\.element)
    }

    /// A property's value in payload form; `nil` when nothing is to be written.
    private mutating func json(_ value: Value, rule: Rule, path: () -> String, property: () -> String) -> Value? {
        if let union = rule.object?.union {
            return payload(for: value, of: union, rule: rule, path: path, property: property)
        }
        if let object = rule.object, let index = object.context {
            return objects(value, with: mapper.catalog.contexts[index], path: path, property: property)
        }
        let value = rule.valueMap.map { $0.unmap(value) } ?? value
        if let formats = rule.dateFormats { return Self.formatDates(value, formats: formats) }
        return value
    }

    /// The payload of the objects `value` holds, through their context: one object, or the
    /// objects of an array or a dictionary, at any depth (`[[Tweet]]`, `[String: [Tweet]]`).
    private mutating func objects(
        _ value: Value, with context: CompiledContext, path: () -> String, property: () -> String
    ) -> Value {
        switch value {
        case .array(let elements):
            var written: [Value] = []
            for (offset, element) in elements.enumerated() {
                written.append(
                    objects(
                        element, with: context, path: { path() + "[\(offset)]" },
                        property: { property() + "[\(offset)]" }))
            }
            return .array(written)
        case .dictionary(let dictionary) where context.model != nil:
            var written: [(key: String, value: Value)] = []
            for entry in dictionary.entries {
                written.append(
                    (
                        entry.key,
                        objects(
                            entry.value, with: context, path: { path() + PathText.member(entry.key) },
                            property: { property() + "[\(PathText.quoted(entry.key))]" })
                    ))
            }
            return .dictionary(ValueDictionary(written))
        case .null:
            return .json(.null)
        default:
            return payload(for: value, with: context, path: path, property: property)
        }
    }

    private static func formatDates(_ value: Value, formats: DateFormats) -> Value {
        switch value {
        case .date(let date): .json(formats.write(date))
        case .array(let elements): .array(elements.map { formatDates($0, formats: formats) })
        case .dictionary(let dictionary):
            .dictionary(ValueDictionary(dictionary.entries.map { ($0.key, formatDates($0.value, formats: formats)) }))
        default: value
        }
    }

    /// A payload-form value as a JSON value (what a transformer takes).
    static func jsonValue(_ value: Value) -> JSONValue {
        if case .json(let json) = value { return json }
        var bytes: [UInt8] = []
        JSONWriter.write(value, into: &bytes)
        return (try? JSONParser.parse(bytes)) ?? .null
    }

    private mutating func report(_ rule: Rule, path: String, property: String, value: Value, message: String) {
        issues.append(
            MappingIssue(
                kind: .transformerFailed, path: path, property: property, rule: rule.provenance,
                value: JSONWriter.messageText(value), message: message))
    }
}

/// Reverse mapping (serialization): objects back into the payloads their contexts read.
///
/// ```swift
/// let context = try mapper.context("$TweetModel")
/// let tweet = mapper.object(from: payload, using: context).value
/// let back = mapper.payload(from: tweet, using: context)
/// print(back.value.jsonText)   // {"id_str":"1","text":"hi","user":{"name":"Ann",…},…}
/// ```
/// Mapping the payload again with the same context gives the same object: the tests check
/// it for every shipped context and `"@tests"` vector.
extension Mapper {
    /// The payload an object would be mapped from with the context `identifier`. The result's
    /// value is in JSON form (`JSONWriter` writes it); its issues name what could not be
    /// written back (a transformer without a reverse, or one that failed): where it would
    /// have gone in the payload, and the property.
    package func payload(from object: Value, context identifier: String) throws(MappingsError) -> MappingResult {
        payload(from: object, using: try context(identifier))
    }

    /// The payload for an object, with a context looked up once beforehand.
    public func payload(from object: Value, using context: CompiledContext) -> MappingResult {
        payload(from: object, using: context, writingNulls: false)
    }

    /// The payload for an object; with `writingNulls`, each unset property is written as `null`
    /// at its key path (`serialize --nulls`) rather than left out.
    package func payload(from object: Value, using context: CompiledContext, writingNulls: Bool) -> MappingResult {
        var run = ReverseRun(mapper: self)
        run.writesNulls = writingNulls
        let name = context.model ?? context.identifier ?? "JSON"
        let value = run.payload(for: object, with: context, path: { "$" }, property: { name })
        return MappingResult(value: value, issues: run.issues)
    }

    /// One payload per object, as a JSON array (the reverse of `objects(from:context:)`).
    package func payloads(from objects: [Value], context identifier: String) throws(MappingsError) -> MappingResult {
        payloads(from: objects, using: try context(identifier))
    }

    /// One payload per object, as a JSON array, with a context looked up once beforehand.
    public func payloads(from objects: [Value], using context: CompiledContext) -> MappingResult {
        payloads(from: objects, using: context, writingNulls: false)
    }

    /// One payload per object, as a JSON array; with `writingNulls`, unset properties as `null`.
    package func payloads(from objects: [Value], using context: CompiledContext, writingNulls: Bool) -> MappingResult {
        var run = ReverseRun(mapper: self)
        run.writesNulls = writingNulls
        let name = context.model ?? context.identifier ?? "JSON"
        let values = objects.enumerated().map { index, object in
            run.payload(for: object, with: context, path: { "$[\(index)]" }, property: { "\(name)[\(index)]" })
        }
        return MappingResult(value: .array(values), issues: run.issues)
    }

    /// What reverse mapping with `context` cannot write back, known when the catalog loads: one
    /// note per entry (in the context and the contexts it nests) whose key path reads `@count`,
    /// which is derived from an array and says nothing of its elements.
    public func reverseNotes(for context: CompiledContext) -> [Diagnostic] {
        var notes: [Diagnostic] = []
        var seen: Set<Int> = []
        var pending = [context]
        while let current = pending.popLast() {
            guard seen.insert(current.index).inserted else { continue }
            for rule in current.rules {
                if rule.source.components.contains(.count) {
                    notes.append(
                        Diagnostic(
                            message:
                                "\"\(rule.target)\" reads \"\(rule.source)\", a count, which cannot be written back: serialize leaves it out",
                            location: rule.provenance.location))
                }
                if let index = rule.object?.context { pending.append(catalog.contexts[index]) }
                pending += (rule.object?.union?.contexts ?? []).map { catalog.contexts[$0] }
            }
        }
        return notes.sorted {
            ($0.location?.file ?? "", $0.location?.line ?? 0) < ($1.location?.file ?? "", $1.location?.line ?? 0)
        }
    }

    /// The payload a typed instance would be mapped from.
    package func payload<T: MappedModel>(from object: T, context identifier: String) throws(MappingsError)
        -> MappingResult
    {
        payload(from: object.mappingValue, using: try typedContext(T.self, identifier))
    }

    /// The payload a typed instance would be mapped from, with a context checked once
    /// beforehand by `typedContext(_:_:)`.
    public func payload<T: MappedModel>(from object: T, using context: CompiledContext) -> MappingResult {
        payload(from: object.mappingValue, using: context)
    }

    /// One payload per typed instance, as a JSON array (the reverse of `objects(_:from:using:)`),
    /// with a context checked once beforehand by `typedContext(_:_:)`.
    public func payloads<T: MappedModel>(from objects: [T], using context: CompiledContext) -> MappingResult {
        payloads(from: objects.map(\.mappingValue), using: context)
    }
}
