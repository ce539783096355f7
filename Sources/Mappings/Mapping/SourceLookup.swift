/// Reads a compiled key path from a payload value.
enum SourceLookup {
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
    static func find(_ keyPath: PayloadKeyPath, in value: JSONValue) -> Found {
        switch walk(keyPath, in: value, path: nil) {
        case .found(let found, _): .value(found)
        case .missing: .missing
        case .invalid: .invalid
        }
    }

    /// Follows `keyPath` from `value`, whose payload path is `base`.
    static func lookup(_ keyPath: PayloadKeyPath, in value: JSONValue, base: String) -> Outcome {
        walk(keyPath, in: value, path: base)
    }

    /// The one walk behind both: with a `path`, the text of each step is appended to it (and
    /// messages are written); without, no text is made.
    private static func walk(_ keyPath: PayloadKeyPath, in value: JSONValue, path: String?) -> Outcome {
        var current = value
        var path = path
        for component in keyPath.components {
            switch (component, current) {
            case (.key(let key), .object(let object)):
                path? += PathText.member(key)
                guard let next = object[key] else { return .missing(path: path ?? "") }
                current = next
            case (.key(let key), .array(let elements)):
                path? += "[*]" + PathText.member(key)
                current = .array(
                    elements.map { element in
                        if case .object(let object) = element { return object[key] ?? .null }
                        return .null
                    })
            case (.index(let index), .array(let elements)):
                let position = index < 0 ? elements.count + index : index
                path? += "[\(position)]"
                guard elements.indices.contains(position) else { return .missing(path: path ?? "") }
                current = elements[position]
            case (.index(let index), .object(let object)):
                path? += PathText.member(String(index))
                guard let next = object[String(index)] else { return .missing(path: path ?? "") }
                current = next
            case (.first, .array(let elements)):
                path? += "[0]"
                guard let first = elements.first else { return .missing(path: path ?? "") }
                current = first
            case (.last, .array(let elements)):
                path? += "[\(max(0, elements.count - 1))]"
                guard let last = elements.last else { return .missing(path: path ?? "") }
                current = last
            case (.count, .array(let elements)):
                path? += ".@count"
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

/// Payload path text: `$.user.name`, `$.tags[3]`, `$["odd key"]`.
enum PathText {
    static func member(_ key: String) -> String {
        let plain =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy {
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "$"
            }
        if plain { return "." + key }
        return "[\(quoted(key))]"
    }

    /// `key` as a JSON string literal.
    static func quoted(_ key: String) -> String {
        var text = ""
        JSONWriter.writeString(key, into: &text)
        return text
    }

    /// Appends a path relative to a value (`[2].name`) to that value's path. When the value
    /// came from a fan-out (`$.items[*].name`), each leading index of `relative` names the
    /// element of one `[*]`, left to right: `[2]` after `$.items[*].name` is `$.items[2].name`.
    static func appending(_ relative: String, to path: String) -> String {
        var path = Array(path.utf8)
        var rest = Substring(relative)
        var searchFrom = 0
        while rest.hasPrefix("["), let close = rest.firstIndex(of: "]"),
            rest[rest.index(after: rest.startIndex)..<close].allSatisfy(\.isNumber),
            let star = wildcard(in: path, from: searchFrom)
        {
            let index = Array(rest[...close].utf8)
            path.replaceSubrange(star..<star + 3, with: index)
            searchFrom = star + index.count
            rest = rest[rest.index(after: close)...]
        }
        return String(decoding: path, as: UTF8.self) + rest
    }

    /// The offset of the first `[*]` at or after `start` that is not inside a quoted key.
    private static func wildcard(in path: [UInt8], from start: Int) -> Int? {
        var inString = false
        var escaped = false
        var position = start
        while position < path.count {
            let byte = path[position]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "["), position + 2 < path.count, path[position + 1] == UInt8(ascii: "*"),
                path[position + 2] == UInt8(ascii: "]")
            {
                return position
            }
            position += 1
        }
        return nil
    }
}
