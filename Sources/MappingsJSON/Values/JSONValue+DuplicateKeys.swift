/// Finding the keys a payload's text repeated (`JSONObject.duplicateKeys`) in a value.
extension JSONValue {
    /// Whether an object in this value (this one, or one nested at any depth) repeated a key.
    package var hasDuplicateKeys: Bool {
        switch self {
        case .object(let object):
            !object.duplicateKeys.isEmpty || object.members.contains { $0.value.hasDuplicateKeys }
        case .array(let elements):
            elements.contains { $0.hasDuplicateKeys }
        default:
            false
        }
    }

    /// The payload path of every repeated key in this value that `demand` reads, in payload
    /// order: `$.user.name` for a `name` written twice in `user` (`base` is this value's path).
    ///
    /// Only what the demand reads counts, whether the value was parsed by that demand or
    /// whole: a repeat in a member no entry reads cannot change what the mapping writes.
    package func duplicateKeyPaths(base: String, demand: JSONDemand = .everything) -> [String] {
        guard hasDuplicateKeys else { return [] }
        var paths: [String] = []
        collectDuplicateKeyPaths(base: base, demand: demand, into: &paths)
        return paths
    }

    private func collectDuplicateKeyPaths(base: String, demand: JSONDemand, into paths: inout [String]) {
        switch self {
        case .object(let object):
            let wanted: [JSONDemand.Member]?
            switch demand {
            case .everything:
                wanted = nil
            case .members(let members, let keepsOtherKeys):
                wanted = members
                if keepsOtherKeys {
                    for key in object.duplicateKeys { paths.append(base + PathText.member(key)) }
                }
            }
            for member in object.members {
                let read: JSONDemand
                if let wanted {
                    guard let found = wanted.first(where: { $0.key.hasSameCodePoints(as: member.key) }) else {
                        continue
                    }
                    read = found.demand
                    if case .members(_, false) = demand,
                        object.duplicateKeys.contains(where: { $0.hasSameCodePoints(as: member.key) })
                    {
                        paths.append(base + PathText.member(member.key))
                    }
                } else {
                    read = .everything
                    if object.duplicateKeys.contains(where: { $0.hasSameCodePoints(as: member.key) }) {
                        paths.append(base + PathText.member(member.key))
                    }
                }
                if member.value.hasDuplicateKeys {
                    member.value.collectDuplicateKeyPaths(
                        base: base + PathText.member(member.key), demand: read, into: &paths)
                }
            }
        case .array(let elements):
            // A demand applies to each element of an array it meets.
            for (index, element) in elements.enumerated() where element.hasDuplicateKeys {
                element.collectDuplicateKeyPaths(base: base + "[\(index)]", demand: demand, into: &paths)
            }
        default:
            break
        }
    }
}
