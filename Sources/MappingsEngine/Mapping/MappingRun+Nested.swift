import MappingsCompiler
import MappingsJSON
import MappingsModel

/// `@object` on collections of collections, `[[Model]]` and `[String: [Model]]`: the payload's
/// arrays and objects are walked to the depth the type says, and each value at the bottom is
/// built as an `@object` element. The outer collection then combines with what the property
/// holds as a flat one would: an array appends (or clears, or inserts at the front), a
/// dictionary keeps the keys the payload does not name unless `@clearContent`.
extension MappingRun {
    mutating func mapNested(
        _ value: JSONValue, type: TypeReference, with object: ObjectRule, rule: Rule, path: () -> String,
        target: inout Value, property: () -> String
    ) {
        guard let built = nested(value, type: type, with: object, rule: rule, path: path, property: property) else {
            return
        }
        switch built {
        case .array(let elements):
            combine(elements, rule: rule, target: &target)
        case .dictionary(let members):
            var result = ValueDictionary()
            if !rule.clearContent, case .dictionary(let old)? = Target.value(at: rule.target.steps[...], in: target) {
                result = old
            }
            var index: [[UInt8]: Int] = [:]
            for (position, entry) in result.entries.enumerated() { index[Array(entry.key.utf8)] = position }
            for entry in members.entries {
                if let position = index[Array(entry.key.utf8)] {
                    result.entries[position].value = entry.value
                } else {
                    index[Array(entry.key.utf8)] = result.entries.count
                    result.entries.append(entry)
                }
            }
            Target.assign(.dictionary(result), at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
        default:
            Target.assign(built, at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
        }
    }

    /// The value of `type` built from `value`; `nil` (reported) when the payload has another
    /// shape at this level, and the part is left out. A null under an optional level stays null.
    private mutating func nested(
        _ value: JSONValue, type: TypeReference, with object: ObjectRule, rule: Rule, path: () -> String,
        property: () -> String
    ) -> Value? {
        if case .null = value, case .optional = type { return .null }
        switch type.unwrapped {
        case .array(let inner):
            guard case .array(let items) = value else { return mismatch(value, type, rule, path, property) }
            var built: [Value] = []
            built.reserveCapacity(items.count)
            for (offset, item) in items.enumerated() {
                // A part of another shape is reported and left out.
                if let part = nested(
                    item, type: inner, with: object, rule: rule,
                    path: { PathText.appending("[\(offset)]", to: path()) }, property: { property() + "[\(offset)]" })
                {
                    built.append(part)
                }
            }
            return .array(built)
        case .dictionary(let inner):
            guard case .object(let members) = value else { return mismatch(value, type, rule, path, property) }
            var built: [(key: String, value: Value)] = []
            for (key, item) in members.members {
                if let part = nested(
                    item, type: inner, with: object, rule: rule, path: { path() + PathText.member(key) },
                    property: { property() + "[\(PathText.quoted(key))]" })
                {
                    built.append((key, part))
                }
            }
            return .dictionary(ValueDictionary(built))
        default:
            let built = element(value, with: object, rule: rule, path: path, existing: nil, property: property)
            return droppedElement ? nil : built
        }
    }

    private mutating func mismatch(
        _ value: JSONValue, _ type: TypeReference, _ rule: Rule, _ path: () -> String, _ property: () -> String
    ) -> Value? {
        let expected = if case .array = type.unwrapped { "an array" } else { "an object" }
        report(
            .invalidSource, at: path(), property: property(), rule: rule, value: Converter.describe(value),
            message: "expected \(expected) for \(type) at \(property()), found \(Converter.describe(value))")
        return nil
    }
}
