import MappingsCompiler
import MappingsJSON
import MappingsModel

/// Reads a compiled key path from a payload value.
package enum SourceLookup {
    enum Outcome {
        case found(JSONValue, path: String)
        case missing(path: String)
        /// The path goes through a value it cannot read (a key of a string, say).
        case invalid(String, path: String)

        /// Where the lookup ended: the value's payload path, or where it went missing.
        var path: String {
            switch self {
            case .found(_, let path), .missing(let path), .invalid(_, let path): path
            }
        }

        /// The message and path of an `invalid` outcome.
        var failure: (message: String, path: String) {
            switch self {
            case .invalid(let message, let path): (message, path)
            case .found(_, let path), .missing(let path): ("", path)
            }
        }
    }

    /// What `find` saw, without any path text.
    enum Found {
        case value(JSONValue)
        case missing
        case invalid
    }

    /// Follows `keyPath` from `value` as `lookup` does, building no path text: the mapping's
    /// hot path. `lookup` tells where, when an issue needs it.
    ///
    /// `cursor` is where the first key is looked for first among `value`'s members, and is
    /// left after the member found: the entries of a context read their keys in about the
    /// order payloads write them, so each lookup takes one comparison instead of a scan
    /// (a wide object's lookups were quadratic in its member count).
    static func find(_ keyPath: PayloadKeyPath, in value: JSONValue, cursor: inout Int) -> Found {
        if case .key(let key) = keyPath.components.first, case .object(let object) = value {
            guard let position = object.position(of: key, from: cursor) else { return .missing }
            cursor = position + 1
            let member = object.members[position].value
            if keyPath.components.count == 1 { return .value(member) }
            var absent: [Bool]?
            return found(walk(keyPath, in: member, path: nil, from: 1, absent: &absent))
        }
        return find(keyPath, in: value)
    }

    static func find(_ keyPath: PayloadKeyPath, in value: JSONValue) -> Found {
        var absent: [Bool]?
        return found(walk(keyPath, in: value, path: nil, absent: &absent))
    }

    private static func found(_ outcome: Outcome) -> Found {
        switch outcome {
        case .found(let found, _): .value(found)
        case .missing: .missing
        case .invalid: .invalid
        }
    }

    /// Follows `keyPath` from `value`, whose payload path is `base`.
    static func lookup(_ keyPath: PayloadKeyPath, in value: JSONValue, base: String) -> Outcome {
        var absent: [Bool]?
        return walk(keyPath, in: value, path: base, absent: &absent)
    }

    /// For a key path that fans out, which elements of the array it makes stand for an object
    /// without the key (absent, `true`) rather than a value or a `null`; `nil` when it does not
    /// fan out (or cannot be read).
    static func absentElements(_ keyPath: PayloadKeyPath, in value: JSONValue) -> [Bool]? {
        var absent: [Bool]? = []
        guard case .found = walk(keyPath, in: value, path: "", absent: &absent) else { return nil }
        return absent?.isEmpty == false ? absent : nil
    }

    /// The one walk behind both: with a `path`, the text of each step is appended to it (and
    /// messages are written); without, no text is made.
    /// `start` skips the components already followed (the caller's `value` is where they led).
    ///
    /// A key applied to an array fans out: each element that is an object gives its member
    /// (null where it has none), a null element gives null, and any other element cannot be
    /// read (an issue, as a key of a string is). Keys after a fan-out read each element of the
    /// array it made, at the same positions (`items.user.name`: one `[*]`, at `items`); an
    /// index, `@first` or `@last` then picks one element and ends it. `absent`, when not
    /// `nil`, gets which positions an object without the key left null.
    private static func walk(
        _ keyPath: PayloadKeyPath, in value: JSONValue, path: String?, from start: Int = 0, absent: inout [Bool]?
    ) -> Outcome {
        var current = value
        var path = path
        // Whether `current` is the array a fan-out made.
        var fanned = false
        // Which of its elements an object without the key made: kept when asked for, or when a
        // later index, `@first` or `@last` may pick one (an absent value is missing, not null).
        let picks = keyPath.components[start...].contains {
            switch $0 {
            case .index, .first, .last: true
            case .key, .count: false
            }
        }
        var holes: [Bool]? = absent != nil || picks ? [] : nil
        defer { if absent != nil { absent = fanned ? holes : nil } }
        for component in keyPath.components[start...] {
            switch (component, current) {
            case (.key(let key), .object(let object)):
                path? += PathText.member(key)
                guard let next = object[key] else { return .missing(path: path ?? "") }
                current = next
            case (.key(let key), .array(let elements)):
                let outcome = fanOut(key, of: elements, fanned: &fanned, holes: &holes, path: &path)
                guard case .found(let values, _) = outcome else { return outcome }
                current = values
            case (.index(let index), .array(let elements)):
                let position = index < 0 ? elements.count + index : index
                guard let picked = pick(position, of: elements, fanned: &fanned, path: &path, holes: holes) else {
                    return .missing(path: path ?? "")
                }
                current = picked
            case (.index(let index), .object(let object)):
                path? += PathText.member(String(index))
                guard let next = object[String(index)] else { return .missing(path: path ?? "") }
                current = next
            case (.first, .array(let elements)):
                guard let picked = pick(0, of: elements, fanned: &fanned, path: &path, holes: holes) else {
                    return .missing(path: path ?? "")
                }
                current = picked
            case (.last, .array(let elements)):
                let last = max(0, elements.count - 1)
                guard let picked = pick(last, of: elements, fanned: &fanned, path: &path, holes: holes) else {
                    return .missing(path: path ?? "")
                }
                current = picked
            case (.count, .array(let elements)):
                path? += ".@count"
                fanned = false
                current = .integer(Int64(elements.count))
            case (.count, .object(let object)):
                path? += ".@count"
                current = .integer(Int64(object.count))
            case (_, .null):
                return .missing(path: path ?? "")
            default:
                guard let path else { return .invalid("", path: "") }
                return .invalid("cannot read \(describe(component)) from \(Converter.describe(current))", path: path)
            }
        }
        return .found(current, path: path ?? "")
    }

    /// `key` of each element of `elements` (a fan-out, or its next key): found (null where an
    /// object has no such key, `holes` marking it), or an element that cannot be read.
    private static func fanOut(
        _ key: String, of elements: [JSONValue], fanned: inout Bool, holes: inout [Bool]?, path: inout String?
    ) -> Outcome {
        if !fanned, holes != nil { holes = Array(repeating: false, count: elements.count) }
        var values: [JSONValue] = []
        values.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            switch element {
            case .object(let object):
                if let member = object[key] {
                    values.append(member)
                } else {
                    values.append(.null)
                    holes?[index] = true
                }
            case .null:
                values.append(.null)
            default:
                guard let path else { return .invalid("", path: "") }
                let at = fanned ? PathText.appending("[\(index)]", to: path) : path + "[\(index)]"
                return .invalid("cannot read \(describe(.key(key))) from \(Converter.describe(element))", path: at)
            }
        }
        path? += (fanned ? "" : "[*]") + PathText.member(key)
        fanned = true
        return .found(.array(values), path: "")
    }

    /// The element at `position`: after a fan-out, the path names it in place of the `[*]` and
    /// the fan-out ends; `nil` when there is none, or when the fan-out made it of an object
    /// without the key (absent, not null).
    private static func pick(
        _ position: Int, of elements: [JSONValue], fanned: inout Bool, path: inout String?, holes: [Bool]?
    ) -> JSONValue? {
        if fanned {
            path = path.map { PathText.appending("[\(position)]", to: $0) }
        } else {
            path? += "[\(position)]"
        }
        defer { fanned = false }
        guard elements.indices.contains(position) else { return nil }
        if fanned, let holes, holes.indices.contains(position), holes[position] { return nil }
        return elements[position]
    }

    private static func describe(_ component: PayloadKeyPath.Component) -> String {
        switch component {
        case .key(let key): "\"\(key)\""
        case .index(let index): "index \(index)"
        case .first: "@first"
        case .last: "@last"
        case .count: "@count"
        }
    }
}

extension SourceLookup {
    /// The payload paths of the keys `keyPath` looks up that the object it looks them up in
    /// repeated (`JSONObject.duplicateKeys`), following it from `value` (whose path is `base`)
    /// as `lookup` does, fan-outs included.
    static func repeatedKeys(along keyPath: PayloadKeyPath, in value: JSONValue, base: String) -> [String] {
        var repeats: [String] = []
        var current: [(value: JSONValue, path: String)] = [(value, base)]
        for component in keyPath.components {
            var next: [(value: JSONValue, path: String)] = []
            for (value, path) in current {
                let key: String
                switch (component, value) {
                case (.key(let name), _): key = name
                case (.index(let index), .object): key = String(index)
                case (.index(let index), .array(let elements)):
                    let position = index < 0 ? elements.count + index : index
                    if elements.indices.contains(position) { next.append((elements[position], path + "[\(position)]")) }
                    continue
                case (.first, .array(let elements)):
                    if let first = elements.first { next.append((first, path + "[0]")) }
                    continue
                case (.last, .array(let elements)):
                    if let last = elements.last { next.append((last, path + "[\(elements.count - 1)]")) }
                    continue
                default:
                    continue
                }
                switch value {
                case .object(let object):
                    let at = path + PathText.member(key)
                    if object.duplicateKeys.contains(where: { $0.hasSameCodePoints(as: key) }) { repeats.append(at) }
                    if let member = object[key] { next.append((member, at)) }
                case .array(let elements):
                    for (index, element) in elements.enumerated() {
                        guard case .object(let object) = element else { continue }
                        let at = path + "[\(index)]" + PathText.member(key)
                        if object.duplicateKeys.contains(where: { $0.hasSameCodePoints(as: key) }) {
                            repeats.append(at)
                        }
                        if let member = object[key] { next.append((member, at)) }
                    }
                default:
                    continue
                }
            }
            current = next
        }
        return repeats
    }
}
