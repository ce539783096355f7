import MappingsCompiler
import MappingsJSON
import MappingsModel

/// Writing the objects of a union back: each through the context of its case, with its
/// discriminator value written at `@discriminator` — the value the payload had, when the object
/// carries it (a mapped object, or one read back from the output), else that of the first case
/// that builds the object's class. An object only `@otherwise` builds and that carries no value
/// has none to write: its context writes what it maps, nothing more.
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
            // The discriminator the payload had, when the object carries it (mapped, or read
            // back from the output): written back as it came, through its own case's context.
            let tagged = object.unionTag.flatMap { $0.keys == union.discriminator.keys ? $0.value : nil }
            let taggedCase = tagged.flatMap(union.chosen(by:)).flatMap { $0.model == object.model.name ? $0 : nil }
            let byOtherwise =
                tagged != nil && taggedCase == nil && tagged.flatMap(union.chosen(by:)) == nil
                && union.otherwise?.model == object.model.name
            guard let index = taggedCase?.context ?? union.context(building: object.model.name) else {
                issues.append(
                    MappingIssue(
                        kind: .invalidSource, path: path(), property: property(), rule: rule.provenance,
                        value: object.model.name,
                        message: "no case of \(union.listed) builds \(object.model.name): \(property()) is left out"))
                return .null
            }
            var written = payload(
                for: value, with: mapper.catalog.contexts[index], path: path, property: property)
            if let tagged, taggedCase != nil || byOtherwise {
                place(tagged, at: union.discriminator.components[...], in: &written, rule: rule, path: path)
            } else if let chosen = union.firstCase(building: object.model.name) {
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
            let converted = mapper.converter.readingBack.convert(
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
                        message: "the case's context writes \(JSONWriter.messageText(old)) where the discriminator "
                            + "\(JSONWriter.messageText(discriminator)) goes; the discriminator is written"))
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
