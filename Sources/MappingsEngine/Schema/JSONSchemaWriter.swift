import MappingsCompiler
import MappingsJSON
import MappingsModel

/// Writes an `OutputShape` as a JSON Schema (draft 2020-12) document.
///
/// Objects a context builds and models converted by name go to `$defs` (so recursive models
/// stay finite); the root context's object is the document itself, `#`.
struct JSONSchemaWriter {
    let catalog: Catalog
    let root: Int
    private var definitions: [(key: String, value: JSONValue)] = []
    private var defined: Set<String> = []

    init(catalog: Catalog, root: Int) {
        self.catalog = catalog
        self.root = root
    }

    /// The document for the root context.
    mutating func document() -> JSONValue {
        let context = catalog.contexts[root]
        var members: [(key: String, value: JSONValue)] = [
            ("$schema", "https://json-schema.org/draft/2020-12/schema"),
            ("title", .string(context.identifier ?? context.model ?? "output")),
        ]
        if case .object(let body) = object(context.model, OutputShape.fields(of: context, catalog: catalog)) {
            members += body.members.filter { $0.key != "title" }
        }
        if !definitions.isEmpty { members.append(("$defs", .object(JSONObject(definitions)))) }
        return .object(JSONObject(members))
    }

    private mutating func object(_ name: String?, _ fields: [OutputShape.Field]) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let name { members.append(("title", .string(name))) }
        members.append(("type", "object"))
        var properties: [(key: String, value: JSONValue)] = []
        for field in fields {
            let schema = schema(field.shape)
            properties.append((field.name, field.nullable ? Self.nullable(schema) : schema))
        }
        members.append(("properties", .object(JSONObject(properties))))
        let required = fields.filter(\.required).map { JSONValue.string($0.name) }
        if !required.isEmpty { members.append(("required", .array(required))) }
        members.append(("additionalProperties", false))
        return .object(JSONObject(members))
    }

    private mutating func schema(_ shape: OutputShape) -> JSONValue {
        switch shape {
        case .json: return [:]
        case .object(let name, let fields): return object(name, fields)
        case .converted(let type): return schema(type)
        case .built(let index, let collection):
            return Self.collected(reference(toContext: index), collection)
        case .alternatives(let contexts, let tag, let collection):
            return Self.collected(Self.anyOf(contexts.map { reference(toContext: $0, tag: tag) }), collection)
        case .discriminator(let values, let open):
            guard !open else { return ["type": ["string", "number", "boolean"]] }
            // A case matches a string of its text, and a number or boolean written so.
            var allowed: [JSONValue] = []
            for value in values {
                allowed.append(.string(value))
                let written = ValueMap.sourceValue(of: value)
                if case .string = written { continue }
                allowed.append(written)
            }
            return ["enum": .array(allowed)]
        }
    }

    /// The schema of `collection` of values of `element`.
    private static func collected(_ element: JSONValue, _ collection: OutputShape.Collection) -> JSONValue {
        switch collection {
        case .single: element
        case .array(let inner): ["type": "array", "items": collected(element, inner)]
        case .dictionary(let inner): ["type": "object", "additionalProperties": collected(element, inner)]
        case .either: ["anyOf": [element, ["type": "array", "items": element]]]
        }
    }

    /// A value valid against one of `schemas` at least (`anyOf`, not `oneOf`: two members whose
    /// properties are all optional can both match one object).
    private static func anyOf(_ schemas: [JSONValue]) -> JSONValue {
        schemas.count == 1 ? schemas[0] : ["anyOf": .array(schemas)]
    }

    /// A converted value of `type`, by the writer's output rules: dates as ISO 8601 text in
    /// UTC, URLs and UUIDs as strings, decimals as JSON numbers with their digits.
    private mutating func schema(_ type: TypeReference) -> JSONValue {
        switch type {
        case .string: return ["type": "string"]
        case .int: return ["type": "integer"]
        case .double, .decimal: return ["type": "number"]
        case .bool: return ["type": "boolean"]
        case .url: return ["type": "string", "format": "uri-reference"]
        case .date: return ["type": "string", "format": "date-time"]
        case .uuid: return ["type": "string", "format": "uuid"]
        case .json: return [:]
        case .enumeration(let enumeration):
            return ["type": "string", "enum": .array(enumeration.values.map(JSONValue.string))]
        case .model(let name): return reference(toModel: name)
        case .union(let members): return Self.anyOf(members.map { reference(toModel: $0) })
        case .array(let element): return ["type": "array", "items": schema(element)]
        case .set(let element): return ["type": "array", "items": schema(element), "uniqueItems": true]
        case .dictionary(let value): return ["type": "object", "additionalProperties": schema(value)]
        case .optional(let wrapped): return Self.nullable(schema(wrapped))
        }
    }

    /// A model converted by name: every property written, non-optional ones never `null`.
    private mutating func reference(toModel name: String) -> JSONValue {
        let key = name
        if !defined.contains(key), let model = catalog.models[name] {
            defined.insert(key)
            let slot = definitions.count
            definitions.append((key, [:]))
            definitions[slot].value = object(name, OutputShape.fields(convertedFrom: model))
        }
        return ["$ref": .string("#/$defs/" + Self.pointerEscaped(key))]
    }

    /// The object a context builds: `#` for the root context, a definition for the others; as a
    /// union's member (with `tag`), a definition of its own that has the discriminator too.
    private mutating func reference(toContext index: Int, tag: OutputShape.Tag? = nil) -> JSONValue {
        let tagField = tag?.field(for: index, catalog: catalog)
        if index == root, tagField == nil { return ["$ref": "#"] }
        let context = catalog.contexts[index]
        var key = context.identifier ?? "context-\(index)"
        if catalog.models[key] != nil { key += " (context)" }
        if let tag, tagField != nil { key += " (by \(tag.keys.joined(separator: ".")))" }
        if !defined.contains(key) {
            defined.insert(key)
            let slot = definitions.count
            definitions.append((key, [:]))
            let fields = OutputShape.fields(of: context, catalog: catalog)
            definitions[slot].value = object(context.model, (tagField.map { [$0] } ?? []) + fields)
        }
        return ["$ref": .string("#/$defs/" + Self.pointerEscaped(key))]
    }

    /// `schema`, allowing `null` too.
    static func nullable(_ schema: JSONValue) -> JSONValue {
        guard case .object(let object) = schema else { return schema }
        if object.count == 0 { return schema }
        if case .string(let type)? = object["type"], object["$ref"] == nil {
            var members = object.members.map { member -> (key: String, value: JSONValue) in
                member.key == "type" ? (member.key, [.string(type), "null"]) : member
            }
            if let index = members.firstIndex(where: { $0.key == "enum" }),
                case .array(let values) = members[index].value
            {
                members[index].value = .array(values + [.null])
            }
            return .object(JSONObject(members))
        }
        return ["anyOf": [schema, ["type": "null"]]]
    }

    /// A `$defs` key as a JSON Pointer token (RFC 6901: `~` and `/` escaped) in a URI fragment
    /// (RFC 3986: what a fragment cannot hold percent-encoded).
    private static func pointerEscaped(_ key: String) -> String {
        var escaped = ""
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "~"): escaped += "~0"
            case UInt8(ascii: "/"): escaped += "~1"
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "$"), UInt8(ascii: "@"), UInt8(ascii: ":"):
                escaped.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                escaped += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return escaped
    }
}
