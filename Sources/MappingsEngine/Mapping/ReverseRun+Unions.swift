import MappingsCompiler
import MappingsJSON
import MappingsModel

/// Writing the objects of a union back: each through the context of its case (found by the
/// object's class), with the case's discriminator value written at `@discriminator`. An object
/// only `@otherwise` builds has no known value: its context writes what it maps, nothing more.
extension ReverseRun {
    mutating func payload(
        for value: Value, of union: UnionRule, rule: Rule, path: () -> String, property: () -> String
    ) -> Value {
        switch value {
        case .array(let elements):
            return .array(
                elements.enumerated().map { offset, element in
                    payload(
                        for: element, of: union, rule: rule, path: { path() + "[\(offset)]" },
                        property: { property() + "[\(offset)]" })
                })
        case .dictionary(let dictionary):
            return .dictionary(
                ValueDictionary(
                    dictionary.entries.map { entry in
                        (
                            entry.key,
                            payload(
                                for: entry.value, of: union, rule: rule, path: { path() + PathText.member(entry.key) },
                                property: { property() + "[\(PathText.quoted(entry.key))]" })
                        )
                    }))
        case .object(let object):
            guard let index = union.context(building: object.model.name) else {
                issues.append(
                    MappingIssue(
                        kind: .invalidSource, path: path(), property: property(), rule: rule.provenance,
                        value: object.model.name,
                        message: "no case of \(union.listed) builds \(object.model.name): \(property()) is left out"))
                return .null
            }
            var written = payload(
                for: value, with: mapper.catalog.contexts[index], path: path, property: property)
            if let chosen = union.firstCase(building: object.model.name) {
                place(
                    union.written(chosen), at: union.discriminator.components[...], in: &written, rule: rule, path: path
                )
            }
            return written
        case .json(let json):
            // A context without a model holds what it read back as JSON: the member is chosen by shape.
            let members = union.cases.map(\.model) + (union.otherwise.map { [$0.model] } ?? [])
            let type =
                rule.type ?? { if case .array = json { .array(.union(members)) } else { .union(members) } }()
            var failures: [ConversionFailure] = []
            let converted = Converter(models: mapper.converter.models, requiresValues: false).convert(
                json, to: type, failures: &failures)
            guard failures.isEmpty else {
                issues += failures.map {
                    MappingIssue(
                        kind: .conversionFailed, path: path() + $0.relativePath, property: property() + $0.relativePath,
                        rule: rule.provenance, value: nil, message: $0.message)
                }
                return .null
            }
            return payload(for: converted, of: union, rule: rule, path: path, property: property)
        default:
            return value
        }
    }

    /// Writes the discriminator value into a written object; a different value the case's
    /// context wrote there is an issue, and the case's value wins (mapping it back chooses by it).
    private mutating func place(
        _ discriminator: JSONValue, at components: ArraySlice<PayloadKeyPath.Component>, in object: inout Value,
        rule: Rule, path: () -> String
    ) {
        guard case .key(let key)? = components.first else { return }
        var dictionary: ValueDictionary
        switch object {
        case .dictionary(let existing): dictionary = existing
        case .json(.object(let existing)):
            dictionary = ValueDictionary(existing.members.map { ($0.key, .json($0.value)) })
        default: dictionary = ValueDictionary()
        }
        if components.count == 1 {
            if let old = dictionary[key], ReverseRun.jsonValue(old) != discriminator {
                issues.append(
                    MappingIssue(
                        kind: .invalidSource, path: path() + PathText.member(key), property: rule.target.description,
                        rule: rule.provenance, value: Converter.shortened(JSONWriter.string(old)),
                        message: "the case's context writes \(JSONWriter.string(old)) where the discriminator "
                            + "\(JSONWriter.string(discriminator)) goes; the discriminator is written"))
            }
            if dictionary[key] == nil {
                dictionary.entries.insert((key, .json(discriminator)), at: 0)
            } else {
                dictionary[key] = .json(discriminator)
            }
        } else {
            var inner = dictionary[key] ?? .dictionary(ValueDictionary())
            place(
                discriminator, at: components.dropFirst(), in: &inner, rule: rule,
                path: { path() + PathText.member(key) })
            dictionary[key] = inner
        }
        object = .dictionary(dictionary)
    }
}
