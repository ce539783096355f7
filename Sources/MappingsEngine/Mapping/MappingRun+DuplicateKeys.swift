import MappingsCompiler
import MappingsJSON
import MappingsModel

/// `duplicate key`: a key the payload's text writes twice in one object, where the mapping
/// reads it.
///
/// The parser keeps a repeated key's last value, as most readers do; but a reader that keeps
/// the first would see another record, so a record that depends on such a key is never mapped
/// silently. The issue comes where the mapping reads: a key an entry looks up (at any step of
/// its key path), or any key inside a value an entry takes whole (a `JSON` property, a
/// dictionary, a Swift transformer's input, a model converted by property name). A repeat in a
/// member no entry reads cannot change what the mapping writes, and is not looked at: a fast
/// plan, which skips such members unparsed, agrees. A Lua script's input is not taken whole: the
/// script reads it through a view, which refuses an object that repeats a key when the script
/// reads it (docs/lua.md, "Views"), in the plan and here alike.
extension MappingRun {
    /// Maps a whole payload (path `$`) with `context`.
    mutating func buildRoot(_ context: CompiledContext, from payload: JSONValue, existing: Value?) -> Value {
        let name = rootName(context)
        noteRepeatedKeys(in: payload)
        // Dropped by the context's `@filter`: nothing is built, and the object stays as it was.
        guard keeps(context, payload, path: { "$" }, property: { name }) else {
            filtered = true
            return existing ?? .null
        }
        return build(context, from: payload, path: { "$" }, existing: existing, property: { name })
    }

    /// Looks once whether the payload repeats a key anywhere: when it does not (almost always),
    /// no entry looks again.
    mutating func noteRepeatedKeys(in payload: JSONValue) {
        payloadRepeatsKeys = payload.hasDuplicateKeys
    }

    /// The repeated keys an entry read: along each key path it tried (`used` is the one that
    /// gave its value; every path when none did), and inside the value when it takes it whole.
    mutating func reportRepeatedKeys(
        of rule: Rule, used: Int, found: JSONValue?, in source: JSONValue, path: () -> String,
        property: () -> String
    ) {
        let paths = rule.keyPaths
        let tried = found == nil || rule.selection != nil ? paths.count : used + 1
        var repeats: [String] = []
        for keyPath in paths.prefix(tried) {
            repeats += SourceLookup.repeatedKeys(along: keyPath, in: source, base: path())
        }
        if let selection = rule.selection, !(rule.transform is any TextTransformer) {
            // Inside each selected value, where the selection found it.
            for selected in selection {
                guard
                    let keyPath = selected.paths.first(where: {
                        switch SourceLookup.find($0, in: source) {
                        case .value(.null), .missing, .invalid: false
                        case .value: true
                        }
                    }),
                    case .value(let value) = SourceLookup.find(keyPath, in: source)
                else { continue }
                repeats += value.duplicateKeyPaths(base: SourceLookup.lookup(keyPath, in: source, base: path()).path)
            }
        } else if let found, rule.selection == nil, !(rule.transform is any TextTransformer),
            rule.object == nil || rule.transform != nil
        {
            let at = SourceLookup.lookup(paths[used], in: source, base: path()).path
            repeats += found.duplicateKeyPaths(base: at)
        }
        for at in repeats { reportRepeatedKey(at: at, property: property(), rule: rule.provenance) }
    }

    /// One `duplicate key` error for the key at payload path `at` (once per path in a run).
    mutating func reportRepeatedKey(at path: String, property: String, rule: Provenance) {
        guard !reportedRepeats.contains(path) else { return }
        reportedRepeats.insert(path)
        issues.append(
            MappingIssue(
                kind: .duplicateKey, path: path, property: property, rule: rule, value: nil,
                message:
                    "duplicate key: this object writes the key more than once (the last value was read; a reader that takes the first sees another record)"
            ))
    }
}
