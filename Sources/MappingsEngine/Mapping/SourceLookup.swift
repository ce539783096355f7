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
