extension AvroSchema {
    /// Why records of `derived` (the schema of what a context maps to) cannot be written as
    /// datums of this schema, checked before the first record: a field the output has and the
    /// schema lacks, a field the schema needs (no default, no `null`) that the output may leave
    /// out, a value whose kind no branch of the schema's type takes. `nil` when they fit; what
    /// only a value can tell (an int's range, a decimal's places, what a `String` or `JSON`
    /// property holds) is checked record by record.
    package func misfit(of derived: AvroSchema) -> String? {
        var seen: Set<[Int]> = []
        return misfit(derived.root, in: derived, root, "$", &seen)
    }

    private func misfit(_ mine: Int, in derived: AvroSchema, _ theirs: Int, _ path: String, _ seen: inout Set<[Int]>)
        -> String?
    {
        // A recursive pair of records is checked once.
        guard seen.insert([mine, theirs]).inserted else { return nil }
        let source = derived[mine]
        if case .union(let branches) = source.kind {
            for branch in branches {
                if let problem = misfit(branch, in: derived, theirs, path, &seen) { return problem }
            }
            return nil
        }
        let targets: [Int]
        if case .union(let branches) = nodes[theirs].kind { targets = branches } else { targets = [theirs] }
        var problems: [String] = []
        for target in targets {
            guard let problem = misfitOne(mine, in: derived, target, path, &seen) else { return nil }
            problems.append(problem)
        }
        return problems.count == 1
            ? problems[0] : "\(path): no branch of the schema's union takes a \(derived.typeName(mine))"
    }

    private func misfitOne(_ mine: Int, in derived: AvroSchema, _ theirs: Int, _ path: String, _ seen: inout Set<[Int]>)
        -> String?
    {
        let (source, target) = (derived[mine], nodes[theirs])
        switch (source.kind, target.kind) {
        case (.record(_, let fields), .record(let name, let theirFields)):
            for field in fields where !theirFields.contains(where: { $0.name == field.name }) {
                return "\(path): the schema's record \"\(name)\" has no field \"\(field.name)\", which the output has"
            }
            for field in theirFields {
                guard let given = fields.first(where: { $0.name == field.name }) else {
                    if field.defaultValue != nil
                        || misfit(derived.nullIndex, in: derived, field.type, path, &seen) == nil
                    {
                        continue
                    }
                    return "\(path): the output has no \"\(field.name)\", which the schema's record \"\(name)\" needs"
                }
                if let problem = misfit(given.type, in: derived, field.type, path + "." + field.name, &seen) {
                    return problem
                }
            }
            return nil
        case (.array(let items), .array(let theirItems)):
            return misfit(items, in: derived, theirItems, path + "[]", &seen)
        case (.map(let values), .map(let theirValues)):
            return misfit(values, in: derived, theirValues, path + "[]", &seen)
        case (.enumeration(_, let symbols), .enumeration(let name, let theirSymbols)):
            let missing = symbols.filter { !theirSymbols.contains($0) }
            return missing.isEmpty
                ? nil : "\(path): the schema's enum \"\(name)\" lacks \(missing.joined(separator: ", "))"
        default:
            return Self.takes(target, source)
                ? nil : "\(path): the output's \(derived.typeName(mine)) is no \(typeName(theirs))"
        }
    }

    /// Whether a value the output writes for `source` (a scalar) can be a datum of `target`.
    private static func takes(_ target: Node, _ source: Node) -> Bool {
        switch (source.kind, source.logical) {
        case (.null, _): return target.kind == .null
        case (.boolean, _): return target.kind == .boolean
        case (.long, .timestampMicros?):
            switch target.logical {
            case .timestampMillis?, .timestampMicros?, .localTimestampMillis?, .localTimestampMicros?, .date?:
                return true
            default: return target.kind == .string
            }
        case (.long, _), (.double, _):
            if case .decimal? = target.logical { return true }
            return [.int, .long, .float, .double, .string].contains(target.kind) && target.logical == nil
        case (.string, _):
            // The output's strings are String, URL and Decimal values, and JSON ones (an entry
            // without a type, any value): each value is checked as it is written.
            return true
        case (.enumeration, _):
            // (An enum into an enum is checked symbol by symbol, above.)
            return target.kind == .string
        default: return false
        }
    }

    /// A `null` node of the schema, when it has one (the derived schema always does: optional
    /// fields are unions with `null`).
    var nullIndex: Int { nodes.firstIndex { $0.kind == .null } ?? root }
}
