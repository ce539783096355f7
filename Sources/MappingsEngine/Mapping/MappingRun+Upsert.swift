import MappingsCompiler
import MappingsJSON
import MappingsModel

/// `@identity`: payload elements matched with the elements a collection already holds, by
/// the values of some properties of the element model (or a dictionary's keys). A match is
/// updated in place, anything else is added, and with `@clearContent` an element the payload
/// does not mention is removed. One hash index over the existing elements: linear time.
extension MappingRun {
    /// An identity as compared: the JSON text of the mapped values, compared byte for byte
    /// (so by code points, and `1` never matches `"1"`).
    typealias IdentityKey = [UInt8]

    /// How the identities of a collection's elements are read: where the identity properties
    /// are in each model an element may be (one, or the members of a union), and how a payload
    /// element's are mapped.
    struct IdentityReader {
        /// One model an element may be, and the slots of its identity properties.
        struct Member {
            let model: Model
            let slots: [Int]
        }

        /// How a payload element mapped by one context reads its identity: for each identity
        /// property, the rule of the context that sets it, or `nil` to read the payload key of
        /// the same name.
        struct Reading {
            let member: Int
            let rules: [Rule?]
        }

        let identity: IdentityRule
        let members: [Member]
        /// The reading of each context an element may be mapped with, by its index in
        /// `Catalog.contexts`; under `-1` for a plain `@object` without a context.
        let readings: [Int: Reading]
        let union: UnionRule?

        /// The member an element the collection holds is, by its class; `nil` for another one.
        func member(of object: ModelObject) -> Member? {
            members.first { $0.model.name == object.model.name && $0.model.properties.count == object.slots.count }
        }
    }

    /// The reader for a collection's elements; `nil` when an element model is unknown (the
    /// loader refuses that).
    func identityReader(_ identity: IdentityRule, object: ObjectRule) -> IdentityReader? {
        var members: [IdentityReader.Member] = []
        for slots in identity.models {
            guard let model = mapper.catalog.models[slots.model] else { return nil }
            members.append(IdentityReader.Member(model: model, slots: slots.slots))
        }
        func reading(_ context: Int?, model: String) -> IdentityReader.Reading? {
            guard let member = members.firstIndex(where: { $0.model.name == model }) else { return nil }
            let rules = members[member].slots.map { slot in
                context.flatMap { index in
                    mapper.catalog.contexts[index].rules.first {
                        $0.target.steps.count == 1 && $0.target.steps[0].slot == slot
                    }
                }
            }
            return IdentityReader.Reading(member: member, rules: rules)
        }
        var readings: [Int: IdentityReader.Reading] = [:]
        if let union = object.union {
            for chosen in union.cases + (union.otherwise.map { [$0] } ?? []) where readings[chosen.context] == nil {
                readings[chosen.context] = reading(chosen.context, model: chosen.model)
            }
        } else if let model = object.model {
            readings[object.context ?? -1] = reading(object.context, model: model)
        }
        return IdentityReader(identity: identity, members: members, readings: readings, union: object.union)
    }

    /// The identity of a payload element, mapped as its context maps those properties (their
    /// issues come when the element itself is mapped); `nil` when a part is missing or null.
    func payloadIdentity(_ item: JSONValue, reader: IdentityReader) -> IdentityKey? {
        guard let reading = reading(of: item, reader: reader) else { return nil }
        let member = reader.members[reading.member]
        var scratch = MappingRun(mapper: mapper)
        scratch.convertsStrictly = convertsStrictly
        var built = Value.object(ModelObject(model: member.model))
        for (offset, slot) in member.slots.enumerated() {
            if let rule = reading.rules[offset] {
                scratch.apply(rule, from: item, path: { "$" }, to: &built, parent: { "" })
            } else if case .object(let members) = item, let found = members[reader.identity.properties[offset]],
                case .object(var object) = built
            {
                var failures: [ConversionFailure] = []
                let converted = converter.convert(
                    found, to: member.model.properties[slot].type, failures: &failures)
                if failures.isEmpty { object.slots[slot] = converted }
                built = .object(object)
            }
        }
        guard case .object(let object) = built else { return nil }
        return Self.identityKey(member.slots.map { object.slots[$0] })
    }

    /// How the identity of a payload element is read: by the context its case (or the
    /// collection's one context) maps it with.
    private func reading(of item: JSONValue, reader: IdentityReader) -> IdentityReader.Reading? {
        guard let union = reader.union else { return reader.readings.first?.value }
        var found: JSONValue?
        if case .value(let value) = SourceLookup.find(union.discriminator, in: item) { found = value }
        if let chosen = found.flatMap(union.chosen(by:)) ?? union.otherwise {
            return reader.readings[chosen.context]
        }
        // No case takes it (an issue): its identity is read from the payload keys, so that the
        // element it would have updated counts as mentioned.
        return IdentityReader.Reading(
            member: 0, rules: [Rule?](repeating: nil, count: reader.identity.properties.count))
    }

    /// Stores in a built element the identity properties its context does not map, read from
    /// the payload keys of the same names as the identity was: the element holds the value it
    /// was matched by, and the next sync matches it again. A value that does not convert is an
    /// error at its key; a missing one is the `missing identity` warning.
    mutating func storeUnmappedIdentity(
        _ item: JSONValue, reader: IdentityReader, rule: Rule, path: () -> String, property: () -> String,
        in built: inout Value
    ) {
        guard case .object(let members) = item, case .object(var object) = built,
            let reading = reading(of: item, reader: reader), reading.rules.contains(where: { $0 == nil })
        else { return }
        let member = reader.members[reading.member]
        guard object.model.name == member.model.name, object.slots.count == member.model.properties.count else {
            return
        }
        for (offset, slot) in member.slots.enumerated() where reading.rules[offset] == nil {
            let name = reader.identity.properties[offset]
            guard let found = members[name], found != .null else { continue }
            var failures: [ConversionFailure] = []
            let converted = converter.convert(found, to: member.model.properties[slot].type, failures: &failures)
            for failure in failures {
                report(
                    failure.issueKind, at: PathText.appending(PathText.member(name) + failure.relativePath, to: path()),
                    property: property() + "." + name + failure.relativePath, rule: rule,
                    value: Converter.describe(found), message: failure.message,
                    severity: failure.isWarning ? .warning : .error)
            }
            if !failures.contains(where: { !$0.isWarning }) { object.slots[slot] = converted }
        }
        built = .object(object)
    }

    /// The identity of an element the collection already holds; `nil` when it has none.
    static func existingIdentity(_ element: Value, reader: IdentityReader) -> IdentityKey? {
        guard case .object(let object) = element, let member = reader.member(of: object) else { return nil }
        return identityKey(member.slots.map { object.slots[$0] })
    }

    private static func identityKey(_ values: [Value]) -> IdentityKey? {
        var key: IdentityKey = []
        for (offset, value) in values.enumerated() {
            if case .null = value { return nil }
            if offset > 0 { key.append(UInt8(ascii: ",")) }
            JSONWriter.write(value, into: &key)
        }
        return key
    }

    /// `20`, or `("octocat",7)` for several properties.
    private static func text(_ key: IdentityKey, _ identity: IdentityRule) -> String {
        let text = String(decoding: key, as: UTF8.self)
        return identity.properties.count > 1 ? "(" + text + ")" : text
    }

    /// Where an upsert stands: the existing elements, those the payload added, and which
    /// element of the payload touched each, by identity.
    private struct Upserting {
        var old: [Value]
        /// Where each identity is: `n >= 0` is old[n], `n < 0` is added[-n - 1].
        var index: [IdentityKey: Int] = [:]
        var touchedBy: [Int?]
        var added: [Value] = []
        var addedFrom: [Int] = []
        var addedKeys: [IdentityKey?] = []
        var updatedKeys: [IdentityKey?] = []
        var failed = false
    }

    /// Maps a payload array into a `[Model]` property with `@identity`.
    mutating func upsert(
        _ items: [JSONValue], with object: ObjectRule, rule: Rule, path: () -> String, target: inout Value,
        property: () -> String
    ) {
        guard let identity = rule.policies.identity, let reader = identityReader(identity, object: object) else {
            return
        }
        let steps = rule.target.steps[...]
        var state = Upserting(old: [], touchedBy: [])
        var hadCollection = false
        if case .array(let existing)? = Target.value(at: steps, in: target) {
            state.old = existing
            hadCollection = true
        }
        state.index.reserveCapacity(state.old.count + items.count)
        for (position, element) in state.old.enumerated() {
            if let key = Self.existingIdentity(element, reader: reader), state.index[key] == nil {
                state.index[key] = position
            }
        }
        state.touchedBy = [Int?](repeating: nil, count: state.old.count)
        for (offset, item) in items.enumerated() {
            upsert(
                item, at: offset, into: &state, with: object, rule: rule, identity: identity, reader: reader,
                path: path,
                property: property)
        }
        if state.failed {
            failProperty(rule, at: path, property: property)
            return
        }
        var kept = state.old
        var removedKeys: [IdentityKey?] = []
        if rule.clearContent {
            kept = []
            kept.reserveCapacity(state.old.count)
            for (position, element) in state.old.enumerated() {
                if state.touchedBy[position] != nil {
                    kept.append(element)
                } else {
                    removedKeys.append(Self.existingIdentity(element, reader: reader))
                }
            }
        }
        let result = rule.insertContentAtBegin ? state.added + kept : kept + state.added
        Target.assign(.array(result), at: steps, in: &target, models: mapper.catalog.models)
        if hadCollection {
            reportChanges(
                rule: rule, identity: identity, at: path, property: property,
                [
                    ("updated", state.updatedKeys.map { $0.map { Self.text($0, identity) } }),
                    ("added", state.addedKeys.map { $0.map { Self.text($0, identity) } }),
                    ("removed", removedKeys.map { $0.map { Self.text($0, identity) } }),
                ])
        }
    }

    /// One payload element of an upsert: it updates the existing element of its identity, merges
    /// into an earlier element of the payload with the same identity, or is added.
    private mutating func upsert(
        _ item: JSONValue, at offset: Int, into state: inout Upserting, with object: ObjectRule, rule: Rule,
        identity: IdentityRule, reader: IdentityReader, path: () -> String, property: () -> String
    ) {
        func itemPath() -> String { PathText.appending("[\(offset)]", to: path()) }
        func itemProperty() -> String { property() + "[\(offset)]" }
        let key = payloadIdentity(item, reader: reader)
        let position = key.flatMap { state.index[$0] }
        var existing: Value?
        var earlier: Int?
        if let position {
            if position >= 0 {
                (existing, earlier) = (state.old[position], state.touchedBy[position])
            } else {
                (existing, earlier) = (state.added[-position - 1], state.addedFrom[-position - 1])
            }
        }
        if let earlier, let key {
            issues.append(
                MappingIssue(
                    kind: .duplicateIdentity, path: itemPath(), property: itemProperty(),
                    rule: identity.provenance, value: nil,
                    message:
                        "the elements [\(earlier)] and [\(offset)] have the same \(identity.description) \(Self.text(key, identity)): merged in order, [\(offset)] wins",
                    severity: .warning))
        }
        let before = issues.count
        var built = element(item, with: object, rule: rule, path: itemPath, existing: existing, property: itemProperty)
        // Dropped by its context's `@filter`: as if the payload did not hold it.
        if droppedElement { return }
        storeUnmappedIdentity(item, reader: reader, rule: rule, path: itemPath, property: itemProperty, in: &built)
        let outcome = elementOutcome(since: before, rule: rule)
        if outcome == .failed { state.failed = true }
        // An element no case of a union takes is already an issue, and no object.
        if key == nil, outcome == .kept, built != .null {
            // Before the element's own issues, in payload order.
            issues.insert(
                MappingIssue(
                    kind: .missingIdentity, path: itemPath(), property: itemProperty(), rule: identity.provenance,
                    value: nil, message: "no \(identity.description) to match the element by: added as a new one",
                    severity: .warning), at: before)
        }
        switch position {
        case let position? where position >= 0:
            // Mentioned, so kept by a sync even when the update is skipped; an object no
            // case of a union takes (an issue) leaves the element as it was.
            if outcome == .kept, reader.union == nil || built != .null {
                state.old[position] = built
                if state.touchedBy[position] == nil { state.updatedKeys.append(key) }
            }
            state.touchedBy[position] = offset
        case let position?:
            if outcome == .kept { state.added[-position - 1] = built }
            state.addedFrom[-position - 1] = offset
        case nil:
            guard outcome == .kept else { return }
            if let key { state.index[key] = -state.added.count - 1 }
            state.added.append(built)
            state.addedFrom.append(offset)
            state.addedKeys.append(key)
        }
    }

    /// A `[String: Model]` property with `@identity: "@key"` or `@onElementError`: members
    /// update the entries of the same key in place; with `@identity` and `@clearContent`, the
    /// entries the payload does not name are removed (without `@identity`, `@clearContent`
    /// starts from an empty dictionary, as before).
    mutating func syncDictionary(
        _ members: JSONObject, with object: ObjectRule, rule: Rule, path: () -> String, target: inout Value,
        property: () -> String
    ) {
        let steps = rule.target.steps[...]
        let identity = rule.policies.identity
        var entries: [(key: String, value: Value)] = []
        var hadDictionary = false
        if case .dictionary(let old)? = Target.value(at: steps, in: target) {
            hadDictionary = true
            if !rule.clearContent || identity != nil { entries = old.entries }
        }
        let oldCount = entries.count
        var index: [[UInt8]: Int] = [:]
        for (position, entry) in entries.enumerated() where index[Array(entry.key.utf8)] == nil {
            index[Array(entry.key.utf8)] = position
        }
        var touched = [Bool](repeating: false, count: oldCount)
        var updated: [String?] = []
        var added: [String?] = []
        var failed = false
        for (key, item) in members.members {
            let position = index[Array(key.utf8)]
            let before = issues.count
            let built = element(
                item, with: object, rule: rule, path: { path() + PathText.member(key) },
                existing: position.map { entries[$0].value },
                property: { property() + "[\(PathText.quoted(key))]" })
            if droppedElement { continue }
            let outcome = elementOutcome(since: before, rule: rule)
            if outcome == .failed { failed = true }
            if let position, position < oldCount {
                // An object no case of a union takes (an issue) leaves the entry as it was.
                if outcome == .kept, object.union == nil || built != .null {
                    entries[position].value = built
                    if !touched[position] { updated.append(PathText.quoted(key)) }
                }
                touched[position] = true
            } else if outcome == .kept {
                if let position {
                    entries[position].value = built
                } else {
                    index[Array(key.utf8)] = entries.count
                    entries.append((key, built))
                    added.append(PathText.quoted(key))
                }
            }
        }
        if failed {
            failProperty(rule, at: path, property: property)
            return
        }
        var removed: [String?] = []
        if identity != nil, rule.clearContent {
            var kept: [(key: String, value: Value)] = []
            for (position, entry) in entries.enumerated() {
                if position >= oldCount || touched[position] {
                    kept.append(entry)
                } else {
                    removed.append(PathText.quoted(entry.key))
                }
            }
            entries = kept
        }
        Target.assign(.dictionary(ValueDictionary(entries)), at: steps, in: &target, models: mapper.catalog.models)
        if let identity, hadDictionary {
            reportChanges(
                rule: rule, identity: identity, at: path, property: property,
                [("updated", updated), ("added", added), ("removed", removed)])
        }
    }

    /// One `info` issue at the collection: `2 updated (20, 21), 1 added (22), 1 removed (19)`;
    /// nothing when nothing changed. Each list shows its first ten.
    private mutating func reportChanges(
        rule: Rule, identity: IdentityRule, at path: () -> String, property: () -> String,
        _ changes: [(verb: String, identities: [String?])]
    ) {
        let parts = changes.filter { !$0.identities.isEmpty }.map { change in
            let shown = change.identities.prefix(10).map { $0 ?? "no \(identity.description)" }
            let more = change.identities.count > 10 ? ", … \(change.identities.count - 10) more" : ""
            return "\(change.identities.count) \(change.verb) (" + shown.joined(separator: ", ") + more + ")"
        }
        guard !parts.isEmpty else { return }
        let message = "by \(identity.description): " + parts.joined(separator: ", ")
        issues.append(
            MappingIssue(
                kind: .collectionChanges, path: path(), property: property(), rule: identity.provenance, value: nil,
                message: message, severity: .info))
        explanations?.append(
            Explanation(property: property(), source: path(), outcome: .changed(message), rule: identity.provenance))
    }
}
