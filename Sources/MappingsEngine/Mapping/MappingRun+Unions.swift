import MappingsCompiler
import MappingsJSON
import MappingsModel

/// Mapping an object of a union: the value at `@discriminator` chooses the case, whose context
/// builds the object; an unknown or missing value maps with `@otherwise`, or is an issue (the
/// object is then `null`, in its place in a collection).
extension MappingRun {
    mutating func member(
        of union: UnionRule, from value: JSONValue, rule: Rule, path: () -> String, existing: Value?,
        property: () -> String
    ) -> Value {
        // Made only for a message: a record that maps cleanly builds no text.
        func type() -> String {
            rule.type?.unionMembers.map { String(describing: TypeReference.union($0)) } ?? "a union"
        }
        guard case .object = value else {
            let message = "expected \(type()), found \(Converter.describe(value))"
            fail(.conversionFailed, at: path(), rule: rule, property: property(), value: value, message: message)
            return .null
        }
        func at() -> String { union.discriminator.payloadPath(from: path()) }
        if payloadRepeatsKeys {
            for repeated in SourceLookup.repeatedKeys(along: union.discriminator, in: value, base: path()) {
                reportRepeatedKey(at: repeated, property: property(), rule: rule.provenance)
            }
        }
        var found: JSONValue?
        switch SourceLookup.find(union.discriminator, in: value) {
        case .value(let discriminator): if discriminator != .null { found = discriminator }
        case .missing: break
        case .invalid:
            // A step of the key path is no object (`meta.kind` where `meta` is a string): said as
            // any entry's key path says it, unless `@otherwise` takes the object.
            guard union.otherwise == nil else { break }
            let (message, location) = SourceLookup.lookup(union.discriminator, in: value, base: path()).failure
            fail(.invalidSource, at: location, rule: rule, property: property(), value: nil, message: message)
            return .null
        }
        let chosen = found.flatMap(union.chosen(by:))
        guard let chosen = chosen ?? union.otherwise else {
            if let found {
                var message =
                    "unknown case \(JSONWriter.messageText(found)) for \(type()): the cases are \(union.listed)"
                if case .string(let text) = found,
                    let close = Suggestion.closest(to: text, among: union.cases.map(\.value))
                {
                    message += "; did you mean \(Suggestion.quoted(close, against: text))?"
                }
                fail(.unknownCase, at: at(), rule: rule, property: property(), value: found, message: message)
            } else {
                fail(
                    .missingRequiredValue, at: at(), rule: rule, property: property(), value: nil,
                    message:
                        "missing discriminator \"\(union.discriminator)\" for \(type()): the cases are \(union.listed)")
            }
            return .null
        }
        if explanations != nil {
            let context = mapper.catalog.contexts[chosen.context]
            let by = context.identifier ?? "an inline context"
            let why = chosen.value.isEmpty ? "@otherwise" : "@cases"
            explanations?.append(
                Explanation(
                    property: property(), source: at(),
                    outcome: .mapped(
                        "\(found.map { JSONWriter.messageText($0) } ?? "missing") → \(chosen.model) by \(by) (\(why))"),
                    rule: rule.provenance))
        }
        var built = build(
            mapper.catalog.contexts[chosen.context], from: value, path: path, existing: existing, property: property)
        // The output carries the discriminator as the payload had it, so that it reads back
        // (`serialize`, `--into`) as the same member, and maps again to the same object.
        if case .object(var object) = built {
            object.unionTag = found.map { UnionTag(keys: union.discriminator.keys, value: $0) }
            built = .object(object)
        }
        return built
    }

    private mutating func fail(
        _ kind: MappingIssue.Kind, at path: String, rule: Rule, property: String, value: JSONValue?, message: String
    ) {
        issues.append(
            MappingIssue(
                kind: kind, path: path, property: property, rule: rule.provenance,
                value: value.map(Converter.describe), message: message))
        explanations?.append(
            Explanation(property: property, source: path, outcome: .failed(message), rule: rule.provenance))
    }
}
