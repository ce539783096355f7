import MappingsCompiler
import MappingsJSON
import MappingsModel

/// Writes one rule's value into a payload being built, at the rule's key path, the way the
/// key path reads it back.
///
/// - A key creates or enters an object; on an array it writes into each element (a fan-out
///   path writes the values of its array into the elements another rule wrote).
/// - An index writes at its position in an array (null before it where nothing is yet); on an
///   object, or a negative index where no array is, it is the member whose key is the digits
///   (`reactions.-1` is the key `-1`), as the lookup reads it.
/// - `@first` and `@last` write at the first and last position of the array (a one-element
///   array when there is none).
/// - Where something is already written, objects merge member by member and arrays element by
///   element; a different value there is an issue naming both rules, and the first stays.
struct PayloadWriter {
    let rule: Rule
    let property: String
    /// The rule that wrote each payload path so far.
    var writers: [String: Rule]
    /// The key paths (of the context's rules) followed by a key, or by an index from the end
    /// (`-1`, `@last`): an array made there by indexes would give those rules values they never
    /// had (a key fans out over an array), so indexes there write member keys.
    let objectsOnly: Set<[PayloadKeyPath.Component]>
    var issues: [MappingIssue] = []

    init(rule: Rule, property: String, writers: [String: Rule], objectsOnly: Set<[PayloadKeyPath.Component]>) {
        self.rule = rule
        self.property = property
        self.writers = writers
        self.objectsOnly = objectsOnly
    }

    /// Every prefix of the rules' key paths that a key or an index from the end follows.
    static func objectsOnly(_ rules: [Rule]) -> Set<[PayloadKeyPath.Component]> {
        var prefixes: Set<[PayloadKeyPath.Component]> = []
        for rule in rules {
            for (offset, component) in rule.source.components.enumerated() {
                switch component {
                case .key, .last: prefixes.insert(Array(rule.source.components[..<offset]))
                case .index(let index) where index < 0: prefixes.insert(Array(rule.source.components[..<offset]))
                default: continue
                }
            }
        }
        return prefixes
    }

    mutating func write(
        _ value: Value, at components: ArraySlice<PayloadKeyPath.Component>, into out: inout Value, path: String
    ) {
        if case .null = value { return }
        guard let component = components.first else {
            place(value, into: &out, path: path)
            return
        }
        let rest = components.dropFirst()
        switch (component, out) {
        case (.key(let key), .array(let elements)) where isPositional(elements, path) && !Self.fansOut(value, elements):
            // Indexes wrote here first, but a key says it is an object: the indexes were member keys.
            out = Self.object(from: elements)
            member(key, value, rest, &out, path)
        case (.index(let index), .array(let elements)) where index < 0 && isPositional(elements, path):
            // Counting from the end of an array only indexes made: a member key such as `-1`.
            out = Self.object(from: elements)
            member(String(index), value, rest, &out, path)
        case (.key, .array(var elements)):
            // A fan-out: one value per element of the array already there.
            guard case .array(let values) = Self.expanded(value), values.count == elements.count else {
                conflict(at: path, found: out, wanted: value)
                return
            }
            out = .null
            for index in elements.indices {
                var element = elements[index]
                write(values[index], at: components, into: &element, path: path + "[\(index)]")
                elements[index] = element
            }
            out = .array(elements)
        case (.key(let key), .null), (.key(let key), .dictionary):
            member(key, value, rest, &out, path)
        case (.index(let index), .dictionary):
            member(String(index), value, rest, &out, path)
        case (.index(let index), .null)
        where index < 0 || objectsOnly.contains(Array(rule.source.components[..<components.startIndex])):
            member(String(index), value, rest, &out, path)
        case (.index(let index), .array), (.index(let index), .null):
            element(at: index, value, rest, &out, path)
        case (.first, .array(var elements))
        where rest.isEmpty && isPositional(elements, path)
            && !Self.same(elements[0], value):
            // `@first` and `@last` of an array only they write: both ends are kept.
            out = .null
            elements.insert(Self.expanded(value), at: 0)
            out = .array(elements)
        case (.last, .array(var elements))
        where rest.isEmpty && isPositional(elements, path)
            && !Self.same(elements[elements.count - 1], value):
            out = .null
            elements.append(Self.expanded(value))
            out = .array(elements)
        case (.first, .array), (.first, .null):
            element(at: 0, value, rest, &out, path)
        case (.last, .array(let elements)):
            element(at: max(0, elements.count - 1), value, rest, &out, path)
        case (.last, .null):
            element(at: 0, value, rest, &out, path)
        case (.count, _):
            return
        default:
            conflict(at: path, found: out, wanted: value)
        }
    }

    /// The object an array made by indexes stands for: its elements under their positions.
    private static func object(from elements: [Value]) -> Value {
        .dictionary(
            ValueDictionary(
                elements.enumerated().compactMap { index, element in
                    if case .null = element { return nil }
                    return (String(index), element)
                }))
    }

    /// Whether `value` holds one value for each of `elements` (a fan-out into them).
    private static func fansOut(_ value: Value, _ elements: [Value]) -> Bool {
        if case .array(let values) = expanded(value) { return values.count == elements.count }
        return false
    }

    /// Whether the array at `path` was built position by position (no rule wrote it whole).
    private func isPositional(_ elements: [Value], _ path: String) -> Bool {
        !elements.isEmpty && writers[path] == nil
    }

    /// Writes into the member `key` of the object `out` (made when it is null).
    private mutating func member(
        _ key: String, _ value: Value, _ rest: ArraySlice<PayloadKeyPath.Component>, _ out: inout Value, _ path: String
    ) {
        var dictionary = ValueDictionary()
        if case .dictionary(let existing) = out { dictionary = existing }
        out = .null
        var child = dictionary[key] ?? .null
        write(value, at: rest, into: &child, path: path + PathText.member(key))
        if case .null = child {} else { dictionary[key] = child }
        out = .dictionary(dictionary)
    }

    /// Writes into position `index` of the array `out` (made when it is null; counted from the
    /// end when negative), with null before it where nothing is yet.
    private mutating func element(
        at index: Int, _ value: Value, _ rest: ArraySlice<PayloadKeyPath.Component>, _ out: inout Value, _ path: String
    ) {
        var elements: [Value] = []
        if case .array(let existing) = out { elements = existing }
        let position = index < 0 ? elements.count + index : index
        guard position >= 0 else {
            conflict(at: path, found: out, wanted: value)
            return
        }
        out = .null
        while elements.count <= position { elements.append(.null) }
        var child = elements[position]
        write(value, at: rest, into: &child, path: path + "[\(position)]")
        elements[position] = child
        out = .array(elements)
    }

    /// Puts `value` where the key path ends: merged with what is there, or an issue.
    private mutating func place(_ value: Value, into out: inout Value, path: String) {
        let value = Self.expanded(value)
        switch (value, out) {
        case (_, .null):
            out = value
            writers[path] = rule
        case (.dictionary(let incoming), .dictionary):
            for entry in incoming.entries {
                member(entry.key, entry.value, [], &out, path)
            }
        case (.array(let incoming), .array(var elements)) where incoming.count == elements.count:
            out = .null
            for index in elements.indices {
                var element = elements[index]
                place(incoming[index], into: &element, path: path + "[\(index)]")
                elements[index] = element
            }
            out = .array(elements)
        default:
            if !Self.same(value, out) { conflict(at: path, found: out, wanted: value) }
        }
    }

    /// A JSON object or array held as `.json` opened up, so that it merges like the others.
    static func expanded(_ value: Value) -> Value {
        switch value {
        case .json(.object(let object)):
            .dictionary(ValueDictionary(object.members.map { ($0.key, .json($0.value)) }))
        case .json(.array(let elements)): .array(elements.map { .json($0) })
        default: value
        }
    }

    /// Whether two payload-form values write the same JSON (numbers by their value).
    private static func same(_ a: Value, _ b: Value) -> Bool {
        let x = ReverseRun.jsonValue(a)
        let y = ReverseRun.jsonValue(b)
        if let p = x.decimalDigits, let q = y.decimalDigits { return p == q }
        return x == y
    }

    private mutating func conflict(at path: String, found: Value, wanted: Value) {
        let other =
            writers[path] ?? writers.filter { path.hasPrefix($0.key) }.max(by: { $0.key.count < $1.key.count })?.value
        let by =
            other.map { "the entry at \($0.provenance.location.file):\($0.provenance.location.line)" }
            ?? "another entry"
        issues.append(
            MappingIssue(
                kind: .invalidSource, path: path, property: property, rule: rule.provenance,
                value: Converter.shortened(JSONWriter.string(wanted)),
                message:
                    "\(property) would write \(JSONWriter.messageText(wanted)) at \(path), where \(by) wrote \(JSONWriter.messageText(found)); the first is kept"
            ))
    }
}
