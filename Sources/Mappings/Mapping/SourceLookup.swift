/// Reads a compiled key path from a payload value.
enum SourceLookup {
    enum Outcome {
        case found(JSONValue, path: String)
        case missing(path: String)
        /// The path goes through a value it cannot read (a key of a string, say).
        case invalid(String, path: String)
    }

    /// Follows `keyPath` from `value`, whose payload path is `base`.
    static func lookup(_ keyPath: KeyPath, in value: JSONValue, base: String) -> Outcome {
        var current = value
        var path = base
        for component in keyPath.components {
            switch (component, current) {
            case (.key(let key), .object(let object)):
                path += PathText.member(key)
                guard let next = object[key] else { return .missing(path: path) }
                current = next
            case (.key(let key), .array(let elements)):
                path += "[*]" + PathText.member(key)
                current = .array(
                    elements.map { element in
                        if case .object(let object) = element { return object[key] ?? .null }
                        return .null
                    })
            case (.index(let index), .array(let elements)):
                let position = index < 0 ? elements.count + index : index
                path += "[\(position)]"
                guard elements.indices.contains(position) else { return .missing(path: path) }
                current = elements[position]
            case (.index(let index), .object(let object)):
                path += PathText.member(String(index))
                guard let next = object[String(index)] else { return .missing(path: path) }
                current = next
            case (.first, .array(let elements)):
                path += "[0]"
                guard let first = elements.first else { return .missing(path: path) }
                current = first
            case (.last, .array(let elements)):
                path += "[\(max(0, elements.count - 1))]"
                guard let last = elements.last else { return .missing(path: path) }
                current = last
            case (.count, .array(let elements)):
                path += ".@count"
                current = .integer(Int64(elements.count))
            case (.count, .object(let object)):
                path += ".@count"
                current = .integer(Int64(object.count))
            case (_, .null):
                return .missing(path: path)
            default:
                return .invalid(
                    "cannot read \(describe(component)) from \(Converter.describe(current))", path: path)
            }
        }
        return .found(current, path: path)
    }

    private static func describe(_ component: KeyPath.Component) -> String {
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
        var quoted = ""
        JSONWriter.writeString(key, into: &quoted)
        return "[\(quoted)]"
    }
}
