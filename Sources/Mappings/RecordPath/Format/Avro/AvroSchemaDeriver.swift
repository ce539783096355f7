import MappingsCompiler
import MappingsEngine
import MappingsJSON
import MappingsModel

/// Writes the schema's JSON, declaring each named type once and naming it after that.
struct AvroSchemaDeriver {
    let catalog: Catalog
    /// The type names taken so far.
    var declared: Set<String> = []
    /// The record each model converted by name became (a second use names it).
    var models: [String: String] = [:]
    /// The record each context's objects became.
    var contexts: [Int: String] = [:]

    /// A name no type has taken yet, made of `base`'s letters and digits.
    mutating func newName(_ base: String) -> String {
        var name = String(base.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
        if !AvroSchema.isName(name) { name = "_" + name }
        var candidate = name
        var suffix = 2
        while declared.contains(candidate) {
            candidate = "\(name)_\(suffix)"
            suffix += 1
        }
        declared.insert(candidate)
        return candidate
    }

    mutating func record(name: String, fields: [OutputShape.Field]) throws(FormatRefusal) -> JSONValue {
        let recordName = newName(name)
        var list: [JSONValue] = []
        for field in fields {
            guard AvroSchema.isName(field.name) else {
                throw FormatRefusal(
                    "the field \(JSONWriter.quotedForMessage(field.name)) of \(name) is no Avro name (a letter or _, then letters, digits and _)"
                )
            }
            var type = try shape(field.shape)
            var members: [(key: String, value: JSONValue)] = [("name", .string(field.name))]
            if field.nullable || !field.required {
                type = Self.nullable(type)
                members += [("type", type), ("default", .null)]
            } else {
                members.append(("type", type))
            }
            list.append(.object(JSONObject(members)))
        }
        return .object(
            JSONObject([("type", .string("record")), ("name", .string(recordName)), ("fields", .array(list))]))
    }

    /// `["null", type]`; a union gains `null` as its first branch.
    static func nullable(_ type: JSONValue) -> JSONValue {
        if case .array(let branches) = type {
            return branches.contains(.string("null")) ? type : .array([.string("null")] + branches)
        }
        return type == .string("null") ? type : .array([.string("null"), type])
    }
}
