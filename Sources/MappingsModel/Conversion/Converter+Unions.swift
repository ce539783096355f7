import MappingsJSON

/// Converting an object to a union where no entry's `@discriminator` reads it: a model
/// converted by name, a `@defaultValue`, an object read back from the tool's output
/// (`serialize`, `--into`). An object that carries the discriminator of a union entry of the
/// same members (as the tool's output does) is the member that names; else it is chosen by shape: the one whose declared properties
/// hold every key of the object; when several do, the one that declares exactly its keys.
/// Anything else fails, naming the members.
extension Converter {
    func convertUnion(
        _ value: JSONValue, members: [String], path: () -> String, failures: inout [ConversionFailure]
    ) -> Value {
        let type = TypeReference.union(members)
        guard case .object(let object) = value else {
            return Self.fail(Self.mismatch(value, type), at: path, &failures)
        }
        // An object that carries a discriminator a union entry of these members declares (the
        // tool's own output does) is the member it names.
        for choice in unionChoices[UnionChoice.key(of: members)] ?? [] {
            guard let (member, tag) = choice.member(of: object), members.contains(member) else { continue }
            var converted = convertModel(value, named: member, path: path, failures: &failures)
            if case .object(var built) = converted {
                built.unionTag = UnionTag(keys: choice.keys, value: tag)
                converted = .object(built)
            }
            return converted
        }
        let keys = object.members.filter { $0.value != .null || !requiresValues }.map(\.key)
        let fitting = members.filter { name in
            guard let model = models[name] else { return false }
            return keys.allSatisfy { model.slot(of: $0) != nil }
        }
        let exact = fitting.filter { models[$0]?.properties.count == keys.count }
        guard let chosen = fitting.count == 1 ? fitting.first : (exact.count == 1 ? exact.first : nil) else {
            let reason =
                fitting.isEmpty
                ? "its keys fit no member"
                : "its keys fit \(fitting.joined(separator: " and ")); an entry's \"@discriminator\" chooses"
            return Self.fail("expected \(type), found \(Self.describe(value)): \(reason)", at: path, &failures)
        }
        return convertModel(value, named: chosen, path: path, failures: &failures)
    }
}
