import MappingsCompiler
import MappingsJSON
import MappingsModel

/// What `@null`, `@onError` and `@onElementError` change while a rule applies.
extension MappingRun {
    /// What became of one element of a collection under the rule's `@onElementError`.
    enum ElementOutcome {
        /// It goes into the collection (no error, or `keep`).
        case kept
        /// It is left out; its errors were made warnings (`skip`).
        case skipped
        /// The whole property fails (`fail`).
        case failed
    }

    /// `"@null": "clear"`: an explicit `null` sets the property to nil, even in an existing object.
    mutating func clear(
        _ rule: Rule, at path: () -> String, target: inout Value, property: () -> String, keyPath used: Int
    ) {
        Target.assign(.null, at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
        explain(property(), rule, path(), .mapped("null (@null: clear)"), keyPath: used)
    }

    /// `"@onError": "default"`: sets the entry's default in place of a value that failed, and
    /// says so; `false` (nothing set) when the entry fails as an error.
    mutating func defaultOnError(_ rule: Rule, target: inout Value) -> Bool {
        guard rule.policies.onError == .default, let defaultValue = rule.defaultValue else { return false }
        Target.assign(defaultValue, at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
        return true
    }

    /// Decides, after an element was built, whether its errors (the issues from `before` on)
    /// keep it, skip it or fail the property; for `skip` they become warnings.
    mutating func elementOutcome(since before: Int, rule: Rule) -> ElementOutcome {
        guard rule.policies.onElementError != .keep,
            issues[before...].contains(where: { $0.severity == .error })
        else { return .kept }
        guard rule.policies.onElementError == .skip else { return .failed }
        for offset in before..<issues.count where issues[offset].severity == .error {
            issues[offset].severity = .warning
            issues[offset].message += " (element skipped, @onElementError: skip)"
        }
        return .skipped
    }

    /// `"@onElementError": "fail"`: an element failed, so the property keeps what it held.
    mutating func failProperty(_ rule: Rule, at path: () -> String, property: () -> String) {
        explain(
            property(), rule, path(),
            .failed("an element failed (@onElementError: fail); the property is left as it was"))
    }

    /// A `[T]` (or, `distinct`, a `{T}`) entry with `@onElementError` `skip` or `fail`: each
    /// element is converted on its own, so that a failing one can be left out or fail the whole
    /// property; a set then keeps each value once, a repeat a `duplicate element` warning.
    mutating func convertElements(
        _ items: [JSONValue], to elementType: TypeReference, rule: Rule, path: () -> String, target: inout Value,
        property: () -> String, holes: inout FanOutHoles, distinct: Bool = false
    ) {
        var built: [(index: Int, value: Value)] = []
        built.reserveCapacity(items.count)
        var failed = false
        for (index, item) in items.enumerated() {
            switch convertPart(
                item, to: elementType, at: "[\(index)]", rule: rule, path: path, property: property, holes: &holes)
            {
            case (.kept, let value): built.append((index, value))
            case (.skipped, _): continue
            case (.failed, _): failed = true
            }
        }
        // Every element's errors are reported before the property fails.
        if failed {
            failProperty(rule, at: path, property: property)
            return
        }
        guard distinct else {
            combine(built.map(\.value), rule: rule, target: &target)
            return
        }
        var repeats: [ConversionFailure] = []
        let values = Converter.distinct(built.filter { $0.value != .null }, path: { "" }, failures: &repeats)
        for repeated in repeats {
            report(
                repeated.issueKind, at: PathText.appending(repeated.relativePath, to: path()),
                property: property() + repeated.relativePath, rule: rule, value: repeated.partValue ?? "",
                message: repeated.message, severity: .warning)
        }
        combine(values, rule: rule, target: &target)
    }

    /// A `[String: T]` entry without `@object` and with `@onElementError` `skip` or `fail`: the
    /// same, member by member; the members replace the dictionary's, as they do without it.
    mutating func convertMembers(
        _ members: JSONObject, to elementType: TypeReference, rule: Rule, path: () -> String, target: inout Value,
        property: () -> String
    ) {
        var built: [(key: String, value: Value)] = []
        var failed = false
        // A dictionary's members are no fan-out's elements.
        var holes = FanOutHoles(keyPath: nil, source: .null)
        for (key, item) in members.members {
            switch convertPart(
                item, to: elementType, at: PathText.member(key), rule: rule, path: path, property: property,
                holes: &holes)
            {
            case (.kept, let value): built.append((key, value))
            case (.skipped, _): continue
            case (.failed, _): failed = true
            }
        }
        // Every element's errors are reported before the property fails.
        if failed {
            failProperty(rule, at: path, property: property)
            return
        }
        Target.assign(
            .dictionary(ValueDictionary(built)), at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
    }

    /// One element or member converted, its failures reported at `relative` below the
    /// collection, and what `@onElementError` makes of it.
    private mutating func convertPart(
        _ item: JSONValue, to type: TypeReference, at relative: String, rule: Rule, path: () -> String,
        property: () -> String, holes: inout FanOutHoles
    ) -> (ElementOutcome, Value) {
        var failures: [ConversionFailure] = []
        let converted = converter.convert(item, to: type, dateFormat: rule.dateFormats, failures: &failures)
        let before = issues.count
        for failure in failures {
            let below = relative + failure.relativePath
            let failure = Self.restated(failure, relative: below, property: property() + below, holes: &holes)
            report(
                failure.issueKind, at: PathText.appending(below, to: path()), property: property() + below,
                rule: rule, value: failure.partValue ?? (failure.relativePath.isEmpty ? Converter.describe(item) : nil),
                message: failure.message,
                severity: failure.isWarning ? .warning : .error)
        }
        return (elementOutcome(since: before, rule: rule), converted)
    }
}

extension ConversionFailure {
    /// The kind of issue the failure is reported as.
    var issueKind: MappingIssue.Kind {
        isDuplicate ? .duplicateElement : isMissingValue ? .missingRequiredValue : .conversionFailed
    }
}
