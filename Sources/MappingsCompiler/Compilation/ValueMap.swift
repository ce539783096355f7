package import MappingsJSON
package import MappingsModel

/// A compiled `@valueMap`: the source values an entry translates before conversion, and the
/// way back for `serialize`.
///
/// Keys are JSON object keys, so strings; a payload value matches the key that spells it: a
/// string its own text, a number its digits as the payload writes them (`"1"` matches `1`,
/// not `1.0`), a boolean `"true"` or `"false"`. An array maps element by element and an
/// object member by member; a value no key matches passes through. The lookups are built
/// once: mapping a value hashes it, and builds no text (except a number held as a `Double`,
/// which only a transformer returns). A class: a rule carries one reference, not the tables.
package final class ValueMap: Sendable {
    /// Keys → mapped values, compared by code points.
    private let strings: [CodePointKey: JSONValue]
    /// Keys that spell an integer the way JSON writes it (`"1"`, `"-3"`) → mapped values.
    private let integers: [Int64: JSONValue]
    private let whenTrue: JSONValue?
    private let whenFalse: JSONValue?
    /// For `serialize`: a mapped string value → the source value it is written back as.
    private let reverseStrings: [CodePointKey: JSONValue]
    /// For `serialize`: any other mapped value, by its JSON text → the source value.
    private let reverseOthers: [CodePointKey: JSONValue]

    /// - Parameters:
    ///   - pairs: the keys as written and the values they map to, in order.
    ///   - reverse: for each mapped value, the key `serialize` writes back, and the mapped value
    ///     as the property holds it (converted to the entry's type).
    package init(pairs: [(key: String, value: JSONValue)], reverse: [(held: Value, key: String)]) {
        var strings: [CodePointKey: JSONValue] = [:]
        var integers: [Int64: JSONValue] = [:]
        for (key, value) in pairs {
            strings[CodePointKey(key)] = value
            if let integer = Int64(key), String(integer) == key { integers[integer] = value }
        }
        self.strings = strings
        self.integers = integers
        whenTrue = strings[CodePointKey("true")]
        whenFalse = strings[CodePointKey("false")]
        var reverseStrings: [CodePointKey: JSONValue] = [:]
        var reverseOthers: [CodePointKey: JSONValue] = [:]
        for (held, key) in reverse {
            let written = Self.sourceValue(of: key)
            switch held {
            case .string(let string), .json(.string(let string)): reverseStrings[CodePointKey(string)] = written
            default: reverseOthers[CodePointKey(JSONWriter.string(held))] = written
            }
        }
        self.reverseStrings = reverseStrings
        self.reverseOthers = reverseOthers
    }

    /// What `serialize` writes for a key: a key that reads as a JSON number or boolean is
    /// written as that number or boolean (the payload most likely held one), any other as a string.
    package static func sourceValue(of key: String) -> JSONValue {
        if key == "true" { return .bool(true) }
        if key == "false" { return .bool(false) }
        if let first = key.utf8.first, first == UInt8(ascii: "-") || (48...57).contains(first),
            let parsed = try? JSONParser.parse(Array(key.utf8))
        {
            switch parsed {
            case .integer, .double, .number: return parsed
            default: break
            }
        }
        return .string(key)
    }

    /// The source value translated: the mapped value of the key it matches, or itself.
    package func map(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let string): return strings[CodePointKey(string)] ?? value
        case .integer(let integer): return integers[integer] ?? value
        case .number(let number): return strings[CodePointKey(number.literal)] ?? value
        case .double(let double): return strings[CodePointKey(JSONNumber.text(of: double))] ?? value
        case .bool(let bool): return (bool ? whenTrue : whenFalse) ?? value
        case .array(let elements): return .array(elements.map(map))
        case .object(let object):
            return .object(JSONObject(object.members.map { ($0.key, map($0.value)) }))
        case .null: return value
        }
    }

    /// A property's value translated back for `serialize`: each mapped value becomes the key
    /// chosen for it (in JSON form); any other value is left as it is.
    package func unmap(_ value: Value) -> Value {
        switch value {
        case .null, .object: return value
        case .array(let elements): return .array(elements.map(unmap))
        case .dictionary(let dictionary):
            return .dictionary(ValueDictionary(dictionary.entries.map { ($0.key, unmap($0.value)) }))
        case .json(.array(let elements)): return .json(.array(elements.map { Self.json(unmap(.json($0))) }))
        case .json(.object(let object)):
            return .json(.object(JSONObject(object.members.map { ($0.key, Self.json(unmap(.json($0.value)))) })))
        case .string(let string), .json(.string(let string)):
            return reverseStrings[CodePointKey(string)].map(Value.json) ?? value
        default:
            guard !reverseOthers.isEmpty else { return value }
            return reverseOthers[CodePointKey(JSONWriter.string(value))].map(Value.json) ?? value
        }
    }

    private static func json(_ value: Value) -> JSONValue {
        if case .json(let json) = value { return json }
        return (try? JSONParser.parse(Array(JSONWriter.string(value).utf8))) ?? .null
    }
}
