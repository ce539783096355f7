import MappingsCompiler
import MappingsEngine
import MappingsJSON
import MappingsModel

extension AvroSchemaDeriver {
    /// The Avro type of an output shape.
    mutating func shape(_ shape: OutputShape) throws(FormatRefusal) -> JSONValue {
        switch shape {
        case .converted(let type): return try self.type(type)
        case .json, .discriminator: return .string("string")
        case .object(let name, let fields): return try record(name: name ?? "Object", fields: fields)
        case .built(let context, let collection):
            return try wrap(try built(context, tag: nil), in: collection)
        case .alternatives(let contexts, let tag, let collection):
            var branches: [JSONValue] = []
            for context in contexts { branches.append(try built(context, tag: tag)) }
            return try wrap(.array(branches), in: collection)
        }
    }

    /// The record of the objects a context builds (with a union's discriminator field first).
    private mutating func built(_ context: Int, tag: OutputShape.Tag?) throws(FormatRefusal) -> JSONValue {
        if let name = contexts[context] { return .string(name) }
        let compiled = catalog.contexts[context]
        var fields = OutputShape.fields(of: compiled, catalog: catalog)
        if let field = tag?.field(for: context, catalog: catalog) { fields.insert(field, at: 0) }
        let base = compiled.modelDefinition?.name ?? compiled.identifier ?? "Object"
        let json = try record(name: base, fields: fields)
        if case .object(let object) = json, case .string(let name)? = object["name"] { contexts[context] = name }
        return json
    }

    /// `type` in a collection of objects: an array, a map, or either one object or an array.
    private func wrap(_ type: JSONValue, in collection: OutputShape.Collection) throws(FormatRefusal) -> JSONValue {
        switch collection {
        case .single: return type
        case .array(let inner):
            return .object(JSONObject([("type", .string("array")), ("items", try wrap(type, in: inner))]))
        case .dictionary(let inner):
            return .object(JSONObject([("type", .string("map")), ("values", try wrap(type, in: inner))]))
        case .either:
            throw FormatRefusal(
                "an @object entry without a type writes one object or an array of them, which no Avro type is: declare its type"
            )
        }
    }

    /// The Avro type of a declared type.
    mutating func type(_ type: TypeReference) throws(FormatRefusal) -> JSONValue {
        switch type {
        case .string, .url, .decimal, .json: return .string("string")
        case .int: return .string("long")
        case .double: return .string("double")
        case .bool: return .string("boolean")
        case .date:
            return .object(JSONObject([("type", .string("long")), ("logicalType", .string("timestamp-micros"))]))
        case .uuid: return .object(JSONObject([("type", .string("string")), ("logicalType", .string("uuid"))]))
        case .enumeration(let enumeration):
            guard enumeration.values.allSatisfy(AvroSchema.isName) else { return .string("string") }
            return .object(
                JSONObject([
                    ("type", .string("enum")), ("name", .string(newName(enumeration.name))),
                    ("symbols", .array(enumeration.values.map(JSONValue.string))),
                ]))
        case .array(let element), .set(let element):
            return .object(JSONObject([("type", .string("array")), ("items", try self.type(element))]))
        case .dictionary(let value):
            return .object(JSONObject([("type", .string("map")), ("values", try self.type(value))]))
        case .optional(let wrapped): return Self.nullable(try self.type(wrapped))
        case .model(let name): return try model(name)
        case .union(let names):
            var branches: [JSONValue] = []
            for name in names { branches.append(try model(name)) }
            return .array(branches)
        }
    }

    /// A model converted by name: its record, declared once (a recursive model names itself).
    private mutating func model(_ name: String) throws(FormatRefusal) -> JSONValue {
        if let declared = models[name] { return .string(declared) }
        guard let model = catalog.models[name] else { return .string("string") }
        let fields = OutputShape.fields(convertedFrom: model)
        // Reserve the record's name first, so that a property of the model's own type names it.
        let recordName = newName(name)
        models[name] = recordName
        declared.remove(recordName)
        return try record(name: recordName, fields: fields)
    }
}
