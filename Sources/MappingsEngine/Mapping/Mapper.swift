public import MappingsCompiler
public import MappingsJSON
public import MappingsModel

/// Maps JSON payloads with a catalog's contexts: AppCoreKit's `objectFromValue:`,
/// `objectsFromValue:` and `mapValue:toObject:`.
///
/// Mapping never stops at the first problem: it returns the object, as complete as it could
/// be made, with every issue (payload path, property, rule and a short rendering of the value).
/// ```swift
/// let mapper = Mapper(catalog: catalog)
/// let tweets = try mapper.context("$TweetModel")   // looked up once
/// let result = mapper.object(from: payload, using: tweets)
/// print(result.value.jsonText)
/// result.issues.forEach { print($0) }   // $.user.name: missing required value … (contexts/twitter.mappings:8)
/// ```
public struct Mapper: Sendable {
    /// The catalog whose contexts the mapper maps with.
    public let catalog: Catalog
    let converter: Converter
    /// `converter`, strict (`"@conversions": "strict"`).
    let strictConverter: Converter
    /// Whether a mapped context that says nothing of `"@conversions"` converts strictly
    /// (`--strict`); contexts nested in it inherit what it does.
    public private(set) var convertsStrictlyByDefault = false
    /// The contexts checked for Swift types by `map(_:to:context:)`, kept for the next call.
    let typedContexts = TypedContextCache()

    /// A mapper over `catalog`.
    public init(catalog: Catalog) {
        self.catalog = catalog
        self.converter = Converter(models: catalog.models, unionChoices: Self.unionChoices(of: catalog))
        self.strictConverter = converter.strict(true)
    }

    /// The same mapper, converting strictly (or not) where a context says nothing of
    /// `"@conversions"`: what `--strict` does. A context that says `"lenient"` stays lenient.
    public func strictConversions(_ strict: Bool = true) -> Mapper {
        var copy = self
        copy.convertsStrictlyByDefault = strict
        return copy
    }

    /// How the catalog's union entries choose members, by their members: what reading the
    /// tool's output back (`serialize`, `--into`) chooses union members by.
    private static func unionChoices(of catalog: Catalog) -> [String: [UnionChoice]] {
        var choices: [String: [UnionChoice]] = [:]
        for context in catalog.contexts {
            for rule in context.rules {
                guard let union = rule.object?.union, let members = rule.type?.unionMembers else { continue }
                let choice = union.choice
                let key = UnionChoice.key(of: members)
                if !(choices[key]?.contains(choice) ?? false) { choices[key, default: []].append(choice) }
            }
        }
        return choices
    }

    /// A new object from a payload.
    package func object(from payload: JSONValue, context identifier: String) throws(MappingsError) -> MappingResult {
        object(from: payload, using: try context(identifier))
    }

    /// A new object from a payload, with a context looked up once beforehand (see
    /// `context(_:)`): what a loop over many payloads should call.
    public func object(from payload: JSONValue, using context: CompiledContext) -> MappingResult {
        var run = MappingRun(mapper: self)
        let value = run.buildRoot(context, from: payload, existing: nil)
        return MappingResult(value: value, issues: run.issues, filtered: run.filtered)
    }

    /// A new object from a payload's JSON text, parsed as the mapping needs it: members the
    /// context never reads are checked but not built. The same result as parsing with
    /// `JSONParser` and calling `object(from:using:)`, in less time.
    package func object(fromJSON bytes: [UInt8], using context: CompiledContext) throws(JSONParser.Failure)
        -> MappingResult
    {
        object(from: try JSONParser.parse(bytes, demand: context.demand), using: context)
    }

    /// `object(fromJSON:using:)` for a record a fast plan gave back: the transformer calls the
    /// plan made (`memo`) are not made again.
    package func object(fromJSON bytes: [UInt8], using context: CompiledContext, memo: TransformerMemo?)
        throws(JSONParser.Failure) -> MappingResult
    {
        let result: Result<MappingResult, JSONParser.Failure> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParser.Failure) in try object(fromJSON: buffer, using: context, memo: memo) }
        }
        return try result.get()
    }

    /// The same over a record's bytes in place (a line of a larger buffer).
    package func object(
        fromJSON bytes: UnsafeBufferPointer<UInt8>, using context: CompiledContext, memo: TransformerMemo?
    )
        throws(JSONParser.Failure) -> MappingResult
    {
        let payload = try JSONParser.parse(bytes, demand: context.demand)
        var run = MappingRun(mapper: self)
        memo?.replay()
        run.memo = memo
        let value = run.buildRoot(context, from: payload, existing: nil)
        return MappingResult(value: value, issues: run.issues, filtered: run.filtered)
    }

    /// One new object per element of a JSON array's text, parsed as the mapping needs it.
    package func objects(fromJSON bytes: [UInt8], using context: CompiledContext) throws(JSONParser.Failure)
        -> MappingResult
    {
        // Only the elements of an array are mapped; anything else is reported whole.
        let isArray = JSONParser.firstByte(of: bytes) == UInt8(ascii: "[")
        return objects(
            from: try JSONParser.parse(bytes, demand: isArray ? context.demand : .everything), using: context)
    }

    /// A new object from a payload, with what each rule did: where each property's value came
    /// from (source path, transformer, default) or why it has none.
    package func explain(_ payload: JSONValue, context identifier: String) throws(MappingsError) -> (
        result: MappingResult, explanations: [Explanation]
    ) {
        explain(payload, using: try context(identifier))
    }

    /// A new object from a payload, with what each rule did, with a context looked up once beforehand.
    public func explain(_ payload: JSONValue, using context: CompiledContext) -> (
        result: MappingResult, explanations: [Explanation]
    ) {
        explain(payload, into: nil, using: context)
    }

    /// Populates `existing` (a new object when `nil`) from a payload, with what each rule did:
    /// `mappings explain --into`, where `@identity` says which elements it updated, added and removed.
    package func explain(_ payload: JSONValue, into existing: Value?, using context: CompiledContext) -> (
        result: MappingResult, explanations: [Explanation]
    ) {
        var run = MappingRun(mapper: self)
        run.explanations = []
        let value = run.buildRoot(context, from: payload, existing: existing)
        var explanations = run.explanations ?? []
        explanations += Self.unexplained(run.issues, by: explanations)
        return (MappingResult(value: value, issues: run.issues, filtered: run.filtered), explanations)
    }

    /// The issues that no line of `explanations` shows, each as a line of its own: a failed,
    /// defaulted, unknown-key or changes line shows the issues at its path and below it.
    private static func unexplained(_ issues: [MappingIssue], by explanations: [Explanation]) -> [Explanation] {
        var shown: [String] = []
        for explanation in explanations {
            switch explanation.outcome {
            case .failed, .defaulted, .unknownKey, .changed: shown.append(explanation.source)
            case .mapped, .skipped, .reported: continue
            }
        }
        func isShown(_ path: String) -> Bool {
            shown.contains { source in
                guard path.hasPrefix(source) else { return false }
                let rest = path.dropFirst(source.count)
                return rest.isEmpty || rest.hasPrefix("[") || rest.hasPrefix(".")
            }
        }
        return issues.filter { !isShown($0.path) }.map {
            Explanation(
                property: $0.property, source: $0.path, outcome: .reported($0.severity, $0.message), rule: $0.rule)
        }
    }

    /// One new object per element of a payload array.
    package func objects(from payload: JSONValue, context identifier: String) throws(MappingsError) -> MappingResult {
        objects(from: payload, using: try context(identifier))
    }

    /// One new object per element of a payload array, with a context looked up once beforehand.
    public func objects(from payload: JSONValue, using context: CompiledContext) -> MappingResult {
        var run = MappingRun(mapper: self)
        let name = run.rootName(context)
        guard case .array(let elements) = payload else {
            run.issues.append(
                MappingIssue(
                    kind: .invalidSource, path: "$", property: run.rootName(context), rule: context.provenance,
                    value: Converter.describe(payload),
                    message: "expected an array of payloads, found \(Converter.describe(payload))"))
            return MappingResult(value: .array([]), issues: run.issues)
        }
        run.noteRepeatedKeys(in: payload)
        var values: [Value] = []
        values.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            // A payload the context's `@filter` drops is left out, with an `info` issue.
            if run.dropsPayload(context, element, path: { "$[\(index)]" }, property: { name }) { continue }
            values.append(
                run.build(context, from: element, path: { "$[\(index)]" }, existing: nil, property: { name }))
        }
        return MappingResult(value: .array(values), issues: run.issues)
    }

    /// Populates an existing object from a payload: untouched properties keep their values,
    /// nested objects of the same model are updated in place, collections are appended to
    /// unless the rule says `@clearContent`, or matched element by element with `@identity`
    /// (updated, added, and with `@clearContent` removed; an `info` issue says which).
    package func map(_ payload: JSONValue, into existing: Value, context identifier: String) throws(MappingsError)
        -> MappingResult
    {
        map(payload, into: existing, using: try self.context(identifier))
    }

    /// Populates an existing object from a payload, with a context looked up once beforehand.
    public func map(_ payload: JSONValue, into existing: Value, using context: CompiledContext) -> MappingResult {
        var run = MappingRun(mapper: self)
        let value = run.buildRoot(context, from: payload, existing: existing)
        return MappingResult(value: value, issues: run.issues, filtered: run.filtered)
    }

    /// An existing object read from JSON for `map(_:into:context:)`: a model object by
    /// property name for a context with a model, a JSON object otherwise.
    package func existingObject(from json: JSONValue, context identifier: String) throws(MappingsError)
        -> MappingResult
    {
        existingObject(from: json, using: try context(identifier))
    }

    /// An existing object read from JSON, with a context looked up once beforehand.
    public func existingObject(from json: JSONValue, using context: CompiledContext) -> MappingResult {
        guard let model = context.model else {
            guard case .object(let object) = json else {
                return MappingResult(value: .dictionary(ValueDictionary()), issues: [])
            }
            var run = MappingRun(mapper: self)
            for path in json.duplicateKeyPaths(base: "$") {
                run.reportRepeatedKey(at: path, property: run.rootName(context), rule: context.provenance)
            }
            return MappingResult(
                value: .dictionary(ValueDictionary(object.members.map { ($0.key, .json($0.value)) })),
                issues: run.issues)
        }
        var failures: [ConversionFailure] = []
        // Strict where the context (or, saying nothing, the mapper) converts strictly.
        let reading = (context.strictConversions ?? convertsStrictlyByDefault) ? strictConverter : converter
        let value = reading.readingBack.convert(json, to: .model(model), failures: &failures)
        var run = MappingRun(mapper: self)
        for path in json.duplicateKeyPaths(base: "$") {
            run.reportRepeatedKey(at: path, property: model, rule: context.provenance)
        }
        let issues = failures.map {
            MappingIssue(
                kind: .conversionFailed, path: "$" + $0.relativePath, property: model + $0.relativePath,
                rule: origin(of: $0.relativePath, in: context, base: "$").rule, value: nil, message: $0.message)
        }
        return MappingResult(value: value, issues: run.issues + issues)
    }

    /// The context with this identifier; an unknown one is an error with a "did you mean".
    public func context(_ identifier: String) throws(MappingsError) -> CompiledContext {
        guard let context = catalog.context(identifier) else {
            throw MappingsError(
                kind: .unknownName,
                diagnostics: [
                    Diagnostic(
                        message: "no context named \"\(identifier)\"",
                        help: Self.shellExpansionHelp(identifier, among: catalog.identifiers)
                            ?? Suggestion.help(for: identifier, among: catalog.identifiers)
                            ?? "the contexts are " + catalog.identifiers.map { "\"\($0)\"" }.joined(separator: ", "))
                ])
        }
        return context
    }

    /// What to say of a context name a shell has expanded: `"$Name"` in double quotes becomes
    /// the empty string (or what is left after the variable, `"$Pull-v2"` → `-v2`).
    static func shellExpansionHelp(_ identifier: String, among identifiers: [String]) -> String? {
        let variable = #/^\$[A-Za-z_][A-Za-z0-9_]*/#
        let eaten = identifiers.filter { name in
            guard name.hasSuffix(identifier), let match = name.prefixMatch(of: variable) else { return false }
            return name.dropFirst(match.output.count) == identifier[...]
        }
        guard identifier.isEmpty || !eaten.isEmpty else { return nil }
        let example = eaten.first ?? identifiers.first(where: { $0.hasPrefix("$") }) ?? "$Name"
        let start =
            identifier.isEmpty
            ? "the name is empty: a shell expands \"$Name\" in double quotes to nothing"
            : "a shell expands \"$Name\" in double quotes, which leaves \"\(identifier)\" of \"\(example)\""
        return start + "; write it in single quotes: --context '\(example)'"
    }
}
