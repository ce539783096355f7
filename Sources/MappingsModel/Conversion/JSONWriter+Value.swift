import Foundation
import MappingsJSON

/// Converted values as JSON text, by the output rules of `JSONWriter`.
extension JSONWriter {
    package static func string(_ value: Value, omittingNulls: Bool = false) -> String {
        var out: [UInt8] = []
        write(value, into: &out, omittingNulls: omittingNulls)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the JSON text of a converted value to `out`, by the output rules; with
    /// `omittingNulls`, an unset property of a model object is left out rather than written as
    /// `null` (`--omit-nulls`); a `null` in an array or a dictionary is a value, and stays.
    package static func write(_ value: Value, into out: inout [UInt8], omittingNulls: Bool = false) {
        switch value {
        case .null: append("null", to: &out)
        case .string(let string): writeString(string, into: &out)
        case .int(let int): writeInteger(Int64(int), into: &out)
        case .double(let double): out.append(contentsOf: number(double).utf8)
        case .bool(let bool): append(bool ? "true" : "false", to: &out)
        case .decimal(let decimal): out.append(contentsOf: decimal.text.utf8)
        case .url(let url): writeString(url.absoluteString, into: &out)
        case .uuid(let uuid): writeString(uuid.uuidString, into: &out)
        case .date(let date):
            out.append(UInt8(ascii: "\""))
            writeISO8601(date, into: &out)
            out.append(UInt8(ascii: "\""))
        case .json(let json): write(json, into: &out)
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            let keys = object.model.encodedKeys
            var first = true
            if let tag = object.unionTag, writesTag(tag, of: object) {
                writeTag(tag, into: &out)
                first = false
            }
            for slot in object.slots.indices {
                if omittingNulls, case .null = object.slots[slot] { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(contentsOf: keys[slot])
                write(object.slots[slot], into: &out, omittingNulls: omittingNulls)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let elements):
            // Loops of their own rather than the JSON writer's generic helpers: a generic called
            // across modules is not specialized, and would look metadata up for every value.
            out.append(UInt8(ascii: "["))
            for index in elements.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(elements[index], into: &out, omittingNulls: omittingNulls)
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let dictionary):
            out.append(UInt8(ascii: "{"))
            var first = true
            for entry in dictionary.entries {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(entry.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(entry.value, into: &out, omittingNulls: omittingNulls)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Whether a union member's output carries its discriminator: unless its model has a
    /// property of the discriminator's first key, which then writes that key itself.
    package static func writesTag(_ tag: UnionTag, of object: ModelObject) -> Bool {
        guard let first = tag.keys.first else { return false }
        return object.model.slot(of: first) == nil
    }

    /// `"type":"Point"`, or `"meta":{"kind":"rect"}` for a discriminator deeper in the object.
    private static func writeTag(_ tag: UnionTag, into out: inout [UInt8]) {
        for (index, key) in tag.keys.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "{")) }
            writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
        }
        write(tag.value, into: &out)
        for _ in 1..<max(1, tag.keys.count) { out.append(UInt8(ascii: "}")) }
    }
}

extension JSONWriter {
    /// A converted value as a message quotes it (see `messageText(_:limit:)` of `JSONValue`).
    package static func messageText(_ value: Value, limit: Int = 40) -> String {
        if case .json(let json) = value { return messageText(json, limit: limit) }
        if case .string(let string) = value { return quotedForMessage(string, limit: limit) }
        var bytes: [UInt8] = []
        write(value, into: &bytes)
        return messageText(
            (try? JSONParser.parse(bytes)) ?? .string(String(decoding: bytes, as: UTF8.self)), limit: limit)
    }
}
