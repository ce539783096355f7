import MappingsCompiler
import MappingsJSON
import MappingsModel

/// One mapping operation: walks the rules of a context over a payload and collects issues.
struct MappingRun {
    let mapper: Mapper
    var issues: [MappingIssue] = []
    /// What each rule did, when the run explains itself (`nil`: not recorded, no cost).
    var explanations: [Explanation]?
    /// Where the next entry's key is looked for first (`SourceLookup.find(_:in:cursor:)`).
    private var lookupCursor = 0
    /// The transformer calls a fast plan already made for this record (`nil`: none, call them).
    var memo: TransformerMemo?
    /// Whether the payload's text repeats a key in an object the parser built: entries then
    /// look whether what they read is such a key (`duplicate key`).
    var payloadRepeatsKeys = false
    /// The payload paths of the repeated keys reported so far, each reported once.
    var reportedRepeats: Set<String> = []

    /// Whether the context being built converts strictly (`"@conversions"`, inherited).
    var convertsStrictly: Bool
    /// Whether the last `element` call's `@filter` dropped its value (then it built nothing).
    var droppedElement = false
    /// Whether the root context's `@filter` dropped the payload (`buildRoot`).
    var filtered = false
    /// Where the keyed selection of the entry being applied found its values, when explaining.
    var selectionShown: String?
    /// What the entry being explained looked up (`@lookup`), shown with its outcome.
    var lookupShown: String?

    init(mapper: Mapper) {
        self.mapper = mapper
        convertsStrictly = mapper.convertsStrictlyByDefault
    }

    /// The converter of the context being built.
    var converter: Converter { convertsStrictly ? mapper.strictConverter : mapper.converter }

    func rootName(_ context: CompiledContext) -> String {
        context.model ?? context.identifier ?? "JSON"
    }

    /// Maps `source` with `context` into `existing` (or a new object) and returns the object.
    ///
    /// Payload paths and property names are closures, called only when an issue or an
    /// explanation needs the text: a record that maps cleanly builds no path string.
    mutating func build(
        _ context: CompiledContext, from source: JSONValue, path: () -> String, existing: Value?,
        property: () -> String
    ) -> Value {
        let inherited = convertsStrictly
        convertsStrictly = context.strictConversions ?? inherited
        defer { convertsStrictly = inherited }
        var target: Value
        if let model = context.modelDefinition {
            if case .object(let object)? = existing, object.model.name == model.name {
                target = .object(object)
            } else {
                target = .object(ModelObject(model: model))
            }
        } else if case .dictionary? = existing {
            target = existing!
        } else {
            target = .dictionary(ValueDictionary())
        }
        // Before the rules, so that the issues of a level come in payload order before those of nested ones.
        if let check = context.unknownKeys, let read = check.read, case .object(let object) = source {
            reportUnknownKeys(of: object, reading: read, check: check, path: path, property: property)
        }
        for index in context.rules.indices {
            apply(context.rules[index], from: source, path: path, to: &target, parent: property)
        }
        return target
    }

    /// `"@unknownKeys"`: one issue (a warning or an error, as the context says) per key of
    /// `object` that no entry of the context reads, in payload order.
    private mutating func reportUnknownKeys(
        of object: JSONObject, reading read: [String], check: UnknownKeys, path: () -> String, property: () -> String
    ) {
        // Keys an entry reads are reported by that entry; these are the others.
        for key in object.duplicateKeys where !read.contains(where: { $0.hasSameCodePoints(as: key) }) {
            reportRepeatedKey(at: path() + PathText.member(key), property: property(), rule: check.provenance)
        }
        for member in object.members where !read.contains(where: { $0.hasSameCodePoints(as: member.key) }) {
            let at = path() + PathText.member(member.key)
            let severity: MappingIssue.Severity = check.isError ? .error : .warning
            issues.append(
                MappingIssue(
                    kind: .unknownKey, path: at, property: property(), rule: check.provenance, value: nil,
                    message: "unknown key \(PathText.quoted(member.key)), read by no entry", severity: severity))
            explanations?.append(
                Explanation(property: property(), source: at, outcome: .unknownKey(severity), rule: check.provenance))
        }
    }

    /// Applies one entry: finds its value (key paths, fallbacks or a keyed selection), runs its
    /// transformer and value map, then sets the property — or its default, or nothing — and
    /// reports what went wrong. Each step is a function below; a step that reported or set
    /// what the entry comes to ends the entry.
    mutating func apply(
        _ rule: Rule, from source: JSONValue, path: () -> String, to target: inout Value, parent: () -> String
    ) {
        func property() -> String { parent() + "." + rule.target.description }
        selectionShown = nil
        lookupShown = nil
        guard let (lookup, used) = lookUp(rule, in: source, path: path, property: property) else { return }
        func keyPath() -> PayloadKeyPath { used == 0 ? rule.source : rule.fallbacks[used - 1] }
        func valuePath() -> String { SourceLookup.lookup(keyPath(), in: source, base: path()).path }
        if payloadRepeatsKeys {
            var found: JSONValue?
            if case .value(let value) = lookup { found = value }
            reportRepeatedKeys(of: rule, used: used, found: found, in: source, path: path, property: property)
        }
        var value: JSONValue?
        // Whether the key path found `null` (which counts as missing), told apart from no key.
        var foundNull = false
        switch lookup {
        case .value(.null):
            if rule.policies.null == .clear {
                clear(rule, at: valuePath, target: &target, property: property, keyPath: used)
                return
            }
            foundNull = true
        case .value(let found):
            value = found
        case .missing:
            break
        case .invalid:
            let (message, at) = SourceLookup.lookup(keyPath(), in: source, base: path()).failure
            report(.invalidSource, at: at, property: property(), rule: rule, value: nil, message: message)
            explain(property(), rule, at, .failed(message), keyPath: used)
            return
        }
        let found = value
        if let transform = rule.transform, let input = value, let reference = rule.transformer {
            guard
                let output = transformed(
                    input, by: transform, reference, rule: rule, used: used, at: valuePath, target: &target,
                    property: property)
            else { return }
            value = output == .null ? nil : output
        }
        var lookedUp: (key: JSONValue, row: Int?)?
        if let lookup = rule.lookup, let key = value {
            switch lookup.value(for: key) {
            case .found(let cell, let row):
                value = cell == .null ? nil : cell
                lookedUp = (key, row)
                if explanations != nil { lookupShown = Self.shownLookup(lookup, key: key, row: row) }
            case .noRow:
                value = nil
                lookedUp = (key, nil)
            case .invalidKey(let message):
                let text = "@lookup \(lookup.text): \(message)"
                report(
                    .conversionFailed, at: valuePath(), property: property(), rule: rule,
                    value: Converter.describe(key), message: text)
                explain(property(), rule, valuePath(), .failed(text), keyPath: used)
                return
            }
        }
        var unmapped: JSONValue?
        if let valueMap = rule.valueMap, let input = value {
            value = valueMap.map(input)
            if explanations != nil, value != input { unmapped = input }
        }
        guard let value else {
            // A value the transformer made null still came from the key path that won.
            if let lookup = rule.lookup, let lookedUp {
                lookupMissed(
                    lookup, lookedUp, rule: rule, used: used, at: valuePath, target: &target, property: property)
                return
            }
            absent(
                rule, found: found, foundNull: foundNull, used: used, at: valuePath, target: &target, property: property
            )
            return
        }
        if explanations != nil {
            let text = JSONWriter.safeText(value)
            explain(
                property(), rule, valuePath(),
                .mapped(unmapped.map { "\(JSONWriter.safeText($0)) → \(text) (@valueMap)" } ?? text), keyPath: used)
        }
        if let object = rule.object {
            mapObject(value, with: object, rule: rule, path: valuePath, target: &target, property: property)
            return
        }
        guard let type = rule.type else {
            Target.assign(.json(value), at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
            return
        }
        // The elements a fan-out made null for want of their key are absent values (a transformer's
        // or a selection's array is not the key path's).
        var holes = FanOutHoles(
            keyPath: rule.selection == nil && rule.transform == nil ? keyPath() : nil, source: source)
        if rule.policies.onElementError != .keep,
            convertedByElement(
                value, to: type, rule: rule, path: valuePath, target: &target, property: property, holes: &holes)
        {
            return
        }
        convert(
            value, to: type, rule: rule, used: used, in: source, path: path, at: valuePath, target: &target,
            property: property, holes: &holes)
    }

    /// Where the entry's value is: its keyed selection's object, or what its key paths find and
    /// which one found it; `nil` when the selection could not be read (reported).
    private mutating func lookUp(
        _ rule: Rule, in source: JSONValue, path: () -> String, property: () -> String
    ) -> (SourceLookup.Found, Int)? {
        guard let selection = rule.selection else { return Self.find(rule, in: source, cursor: &lookupCursor) }
        if explanations != nil { selectionShown = Self.shown(selection, in: source, base: path()) }
        // A keyed selection: an object of its values (each null when nothing is found).
        switch Self.select(selection, in: source, base: path) {
        case .success(let object): return (.value(object), 0)
        case .failure(let invalid):
            report(
                .invalidSource, at: invalid.at, property: property(), rule: rule, value: nil, message: invalid.message)
            explain(property(), rule, invalid.at, .failed(invalid.message))
            return nil
        }
    }

    /// What the entry's transformer makes of `input`; `nil` when it failed (reported, and the
    /// entry's default set under `"@onError": "default"`).
    private mutating func transformed(
        _ input: JSONValue, by transform: any Transformer, _ reference: TransformerReference, rule: Rule, used: Int,
        at valuePath: () -> String, target: inout Value, property: () -> String
    ) -> JSONValue? {
        do {
            return try memo?.call(transform, reference, input)
                ?? transform.transform(input, userData: reference.userData)
        } catch {
            let message = "\(reference.displayName) failed: \(error.transformerReason)"
            let defaulted = defaultOnError(rule, target: &target)
            report(
                .transformerFailed, at: valuePath(), property: property(), rule: rule,
                value: Converter.describe(input), message: message, severity: defaulted ? .warning : .error)
            explain(
                property(), rule, valuePath(), defaulted ? .defaulted("failed: \(message)") : .failed(message),
                keyPath: used)
            return nil
        }
    }

    /// An entry without a value (missing, null, or null after its transformer): an error when it
    /// is required, else its default or nothing.
    private mutating func absent(
        _ rule: Rule, found: JSONValue?, foundNull: Bool, used: Int, at valuePath: () -> String,
        target: inout Value, property: () -> String
    ) {
        let winner = found == nil ? nil : used
        let why = found != nil ? "null after the transformer" : foundNull ? "null" : "missing"
        if !rule.isOptional {
            let message =
                found == nil
                ? Converter.missingValue(for: property(), isNull: foundNull) + Self.tried(rule)
                : "missing required value for \(property()): the transformer gave null"
            report(
                .missingRequiredValue, at: valuePath(), property: property(), rule: rule, value: nil, message: message)
            let said = why == "missing" ? "missing required value" : "missing required value (\(why))"
            explain(property(), rule, valuePath(), .failed(said), keyPath: winner)
        } else if let defaultValue = rule.defaultValue {
            Target.assign(defaultValue, at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
            explain(property(), rule, valuePath(), .defaulted(why), keyPath: winner)
        } else {
            explain(property(), rule, valuePath(), .skipped(why), keyPath: winner)
        }
    }

    /// `@onElementError` `skip` or `fail` on an array, a set or a dictionary: converts each
    /// element on its own; `false` when the value is not such a collection.
    private mutating func convertedByElement(
        _ value: JSONValue, to type: TypeReference, rule: Rule, path valuePath: () -> String, target: inout Value,
        property: () -> String, holes: inout FanOutHoles
    ) -> Bool {
        switch (value, type.unwrapped) {
        case (.array(let items), .array(let elementType)):
            convertElements(
                items, to: elementType, rule: rule, path: valuePath, target: &target, property: property, holes: &holes)
        case (.array(let items), .set(let elementType)):
            convertElements(
                items, to: elementType, rule: rule, path: valuePath, target: &target, property: property,
                holes: &holes, distinct: true)
        case (.object(let members), .dictionary(let elementType)):
            convertMembers(members, to: elementType, rule: rule, path: valuePath, target: &target, property: property)
        default:
            return false
        }
        return true
    }

    /// Converts the entry's value to its type and sets the property, reporting each part that
    /// failed; under `"@onError": "default"` an error sets the default instead.
    private mutating func convert(
        _ value: JSONValue, to type: TypeReference, rule: Rule, used: Int, in source: JSONValue, path: () -> String,
        at valuePath: () -> String, target: inout Value, property: () -> String, holes: inout FanOutHoles
    ) {
        var failures: [ConversionFailure] = []
        let converted = converter.convert(value, to: type, dateFormat: rule.dateFormats, failures: &failures)
        if !failures.isEmpty {
            let at = valuePath()
            let defaulted = failures.contains { !$0.isWarning } && defaultOnError(rule, target: &target)
            for failure in failures {
                let failure = Self.restated(
                    failure, relative: failure.relativePath, property: property() + failure.relativePath,
                    holes: &holes)
                report(
                    failure.issueKind,
                    at: payloadPath(of: failure.relativePath, at: at, rule: rule, in: source, base: path),
                    property: property() + failure.relativePath,
                    rule: rule,
                    value: failure.partValue ?? (failure.relativePath.isEmpty ? Converter.describe(value) : nil),
                    message: failure.message,
                    severity: defaulted || failure.isWarning ? .warning : .error)
            }
            if defaulted {
                explain(
                    property(), rule, at, .defaulted("failed: " + failures.map(\.message).joined(separator: "; ")),
                    keyPath: used)
                return
            }
            // A warning of the value itself (a Unix time in an unlikely unit) keeps the value.
            if failures.contains(where: { $0.relativePath.isEmpty && !$0.isWarning }) {
                explain(property(), rule, at, .failed(failures.map(\.message).joined(separator: "; ")), keyPath: used)
                return
            }
        }
        if case .array(let elements) = converted {
            combine(elements, rule: rule, target: &target)
        } else {
            Target.assign(converted, at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
        }
    }

    private mutating func mapObject(
        _ value: JSONValue, with object: ObjectRule, rule: Rule, path: () -> String, target: inout Value,
        property: () -> String
    ) {
        if let type = rule.type, type.holdsCollections {
            mapNested(value, type: type, with: object, rule: rule, path: path, target: &target, property: property)
            return
        }
        if case .dictionary? = rule.type?.unwrapped {
            mapDictionary(value, with: object, rule: rule, path: path, target: &target, property: property)
            return
        }
        let isCollection = rule.type.map(\.isCollection) ?? { if case .array = value { true } else { false } }()
        guard isCollection else {
            let existing = Target.value(at: rule.target.steps[...], in: target)
            let built = element(value, with: object, rule: rule, path: path, existing: existing, property: property)
            if droppedElement { return }
            Target.assign(built, at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
            return
        }
        guard case .array(let elements) = value else {
            report(
                .invalidSource, at: path(), property: property(), rule: rule, value: Converter.describe(value),
                message: "expected an array for the collection \(property()), found \(Converter.describe(value))")
            return
        }
        if rule.policies.identity != nil {
            upsert(elements, with: object, rule: rule, path: path, target: &target, property: property)
            return
        }
        var built: [Value] = []
        built.reserveCapacity(elements.count)
        var failed = false
        for (index, item) in elements.enumerated() {
            let before = issues.count
            let value = element(
                item, with: object, rule: rule, path: { PathText.appending("[\(index)]", to: path()) },
                existing: nil, property: { property() + "[\(index)]" })
            if droppedElement { continue }
            switch elementOutcome(since: before, rule: rule) {
            case .kept: built.append(value)
            case .skipped: continue
            case .failed: failed = true
            }
        }
        if failed {
            failProperty(rule, at: path, property: property)
            return
        }
        combine(built, rule: rule, target: &target)
    }

    /// A `[String: Model]` property: each member of the JSON object becomes one object, under
    /// the same key. Keys already in an existing dictionary stay unless `@clearContent` is set;
    /// an existing entry of the same class is updated in place.
    private mutating func mapDictionary(
        _ value: JSONValue, with object: ObjectRule, rule: Rule, path: () -> String, target: inout Value,
        property: () -> String
    ) {
        guard case .object(let members) = value else {
            report(
                .invalidSource, at: path(), property: property(), rule: rule, value: Converter.describe(value),
                message: "expected an object for the dictionary \(property()), found \(Converter.describe(value))")
            return
        }
        if rule.policies.identity != nil || rule.policies.onElementError != .keep {
            syncDictionary(members, with: object, rule: rule, path: path, target: &target, property: property)
            return
        }
        var result = ValueDictionary()
        if !rule.clearContent, case .dictionary(let old)? = Target.value(at: rule.target.steps[...], in: target) {
            result = old
        }
        for (key, item) in members.members {
            let built = element(
                item, with: object, rule: rule, path: { path() + PathText.member(key) }, existing: result[key],
                property: { property() + "[\(PathText.quoted(key))]" })
            if !droppedElement { result[key] = built }
        }
        Target.assign(.dictionary(result), at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
    }

    mutating func element(
        _ value: JSONValue, with object: ObjectRule, rule: Rule, path: () -> String, existing: Value?,
        property: () -> String
    ) -> Value {
        if drops(value, with: object, path: path, property: property) {
            droppedElement = true
            return .null
        }
        // A null element stays null: in a collection of optional objects (`[Label?]`) as it is, in
        // one of objects an issue says so — never an object of nulls built from nothing.
        if case .null = value, object.union == nil {
            droppedElement = false
            if let type = rule.type, !Self.holdsOptionalObjects(type) {
                let model = Self.objectType(type).map { "\($0)" } ?? "an object"
                report(
                    .conversionFailed, at: path(), property: property(), rule: rule, value: "null",
                    message: "expected \(model), found null")
            }
            return .null
        }
        let built = builtElement(value, with: object, rule: rule, path: path, existing: existing, property: property)
        droppedElement = false
        return built
    }

    private mutating func builtElement(
        _ value: JSONValue, with object: ObjectRule, rule: Rule, path: () -> String, existing: Value?,
        property: () -> String
    ) -> Value {
        if let union = object.union {
            return member(of: union, from: value, rule: rule, path: path, existing: existing, property: property)
        }
        if let index = object.context {
            return build(
                mapper.catalog.contexts[index], from: value, path: path, existing: existing, property: property)
        }
        guard let model = object.model else { return .json(value) }
        var failures: [ConversionFailure] = []
        let converted = converter.convert(value, to: .model(model), failures: &failures)
        if !failures.isEmpty {
            let (at, name) = (path(), property())
            issues += failures.map {
                MappingIssue(
                    kind: $0.issueKind, path: PathText.appending($0.relativePath, to: at),
                    property: name + $0.relativePath,
                    rule: rule.provenance,
                    value: $0.partValue ?? ($0.relativePath.isEmpty ? Converter.describe(value) : nil),
                    message: $0.message,
                    severity: $0.isWarning ? .warning : .error)
            }
        }
        return converted
    }

    /// Whether the objects at the bottom of a collection type are optional (`[Label?]`,
    /// `[[Card?]]`, `[String: User?]`); the collection's own `?` does not count.
    static func holdsOptionalObjects(_ type: TypeReference) -> Bool {
        var type = type.unwrapped
        while true {
            switch type {
            case .array(let element), .dictionary(let element), .set(let element):
                if case .optional(let inner) = element, !inner.isCollection { return true }
                type = element.unwrapped
            default: return false
            }
        }
    }

    /// The object type at the bottom of a collection type, for messages.
    static func objectType(_ type: TypeReference) -> TypeReference? {
        var type = type.unwrapped
        while true {
            switch type {
            case .array(let element), .dictionary(let element), .set(let element): type = element.unwrapped
            case .model, .union: return type
            default: return nil
            }
        }
    }

    /// Puts collection elements into the target: appended by default, inserted at the front
    /// with `@insertContentAtBegin`, replacing the old ones with `@clearContent`.
    func combine(_ elements: [Value], rule: Rule, target: inout Value) {
        var result = elements
        if !rule.clearContent, case .array(let old)? = Target.value(at: rule.target.steps[...], in: target) {
            result = rule.insertContentAtBegin ? elements + old : old + elements
            // A set takes the union: each value once, in the set's order.
            if case .set? = rule.type?.unwrapped { result = SetOrder.union(result) }
        }
        Target.assign(.array(result), at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
    }

    /// What the rule's key paths find in `source`, and which one found it (0 is `rule.source`,
    /// `n` is `rule.fallbacks[n - 1]`): the first that is present and not null, or the first
    /// that cannot be read; when none is present, the first path's outcome. An entry with one
    /// key path does exactly one lookup.
    private static func find(_ rule: Rule, in source: JSONValue, cursor: inout Int) -> (SourceLookup.Found, Int) {
        let first = SourceLookup.find(rule.source, in: source, cursor: &cursor)
        if rule.fallbacks.isEmpty { return (first, 0) }
        switch first {
        case .value(.null), .missing: break
        case .value, .invalid: return (first, 0)
        }
        for (offset, fallback) in rule.fallbacks.enumerated() {
            let found = SourceLookup.find(fallback, in: source)
            switch found {
            case .value(.null), .missing: continue
            case .value, .invalid: return (found, offset + 1)
            }
        }
        return (first, 0)
    }

    /// Why a keyed selection has no value: a key path that cannot be read, and where.
    struct InvalidSelection: Error {
        var message: String
        var at: String
    }

    /// The object a keyed selection makes of `source`: each key's value is what its first key
    /// path that finds a present, non-null value finds, else null; a key path that cannot be
    /// read (a key of a string) fails the selection, as it fails an entry.
    static func select(_ selection: [SelectedKey], in source: JSONValue, base: () -> String) -> Result<
        JSONValue, InvalidSelection
    > {
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(selection.count)
        for selected in selection {
            var value = JSONValue.null
            for keyPath in selected.paths {
                switch SourceLookup.find(keyPath, in: source) {
                case .value(.null), .missing: continue
                case .value(let found): value = found
                case .invalid:
                    let (message, at) = SourceLookup.lookup(keyPath, in: source, base: base()).failure
                    return .failure(InvalidSelection(message: message, at: at))
                }
                break
            }
            members.append((selected.key, value))
        }
        return .success(.object(JSONObject(members)))
    }

    /// The payload path of a part of the value (`relative` to `at`): for a keyed selection's
    /// object without a transformer, a part under one of its keys is where that key's value was
    /// read (the key path that found it, or its first).
    func payloadPath(of relative: String, at: String, rule: Rule, in source: JSONValue, base: () -> String) -> String {
        // The key whose member text the part's path starts with, a whole step of it.
        guard let selection = rule.selection, rule.transformer == nil,
            let selected = selection.first(where: { selected in
                let member = PathText.member(selected.key)
                guard relative.hasPrefix(member) else { return false }
                let rest = relative.dropFirst(member.count)
                return rest.isEmpty || rest.hasPrefix(".") || rest.hasPrefix("[")
            })
        else { return PathText.appending(relative, to: at) }
        let rest = String(relative.dropFirst(PathText.member(selected.key).count))
        let keyPath =
            selected.paths.first(where: {
                switch SourceLookup.find($0, in: source) {
                case .value(.null), .missing, .invalid: false
                case .value: true
                }
            }) ?? selected.paths[0]
        return PathText.appending(rest, to: SourceLookup.lookup(keyPath, in: source, base: base()).path)
    }

    /// `{amount: $.amount, currency: $.default_currency}`: where each key of a selection found
    /// its value (`null` where none did), as `explain` shows it.
    static func shown(_ selection: [SelectedKey], in source: JSONValue, base: String) -> String {
        let members = selection.map { selected -> String in
            for keyPath in selected.paths {
                switch SourceLookup.find(keyPath, in: source) {
                case .value(.null), .missing: continue
                case .value, .invalid:
                    return "\(selected.key): \(SourceLookup.lookup(keyPath, in: source, base: base).path)"
                }
            }
            return "\(selected.key): null"
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    /// `" (tried full_text, extended_tweet.full_text, text)"` for an entry with fallback key
    /// paths; empty for one with a single key path.
    private static func tried(_ rule: Rule) -> String {
        guard !rule.fallbacks.isEmpty else { return "" }
        return " (tried " + ([rule.source] + rule.fallbacks).map(\.description).joined(separator: ", ") + ")"
    }

    /// Records what a rule did when the run explains itself; the texts are made only then.
    /// `keyPath` is which of the rule's key paths the value came from, when one was present.
    mutating func explain(
        _ property: @autoclosure () -> String, _ rule: Rule, _ path: @autoclosure () -> String,
        _ outcome: @autoclosure () -> Explanation.Outcome, keyPath used: Int? = nil
    ) {
        guard explanations != nil else { return }
        let keyPaths = rule.fallbacks.isEmpty ? [] : ([rule.source] + rule.fallbacks).map(\.description)
        explanations?.append(
            Explanation(
                property: property(), source: selectionShown ?? path(), outcome: outcome(), rule: rule.provenance,
                transformer: rule.transformer.map(\.displayName),
                transformerOrigin: rule.transform?.origin, keyPaths: keyPaths,
                keyPathIndex: keyPaths.isEmpty ? nil : used, keyStyle: rule.keyStyle,
                lookup: rule.lookup.map { lookupShown ?? "@lookup \($0.text)" }))
    }

    mutating func report(
        _ kind: MappingIssue.Kind, at path: String, property: String, rule: Rule, value: String?, message: String,
        severity: MappingIssue.Severity = .error
    ) {
        issues.append(
            MappingIssue(
                kind: kind, path: path, property: property, rule: rule.provenance, value: value, message: message,
                severity: severity))
    }
}
