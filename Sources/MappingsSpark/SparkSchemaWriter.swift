import MappingsCompiler
import MappingsEngine
import MappingsJSON
import MappingsModel

/// Writes an `OutputShape` as a Spark `StructType` in its JSON form.
///
/// Spark types cannot refer to themselves, so nested objects are written out in place, and
/// an object met again inside itself (a recursive model) becomes a string column holding its
/// JSON text, as Spark's JSON reader gives any value read as a string. The same holds for
/// `JSON` properties and for decimals: a Spark decimal has a fixed scale and at most 38
/// digits, a payload's decimal has any, and a string keeps them all — `CAST(col AS
/// DECIMAL(38, s))` is the caller's choice of what to lose. A field whose value holds decimals
/// (itself, or the elements of its arrays and dictionaries) says so in its metadata,
/// `{"mappings.type": "Decimal"}`, and a field whose strings hold JSON text says
/// `{"mappings.type": "JSON"}`: Spark's JSON reader turns a fractional number read as a
/// string into a double's digits, so a reader that keeps every digit (`mappings_spark` does)
/// makes those values strings first. Dates are timestamps.
struct SparkSchemaWriter {
    let catalog: Catalog
    /// The contexts and models being written out, to cut recursion.
    private var writing: [String] = []

    init(catalog: Catalog) {
        self.catalog = catalog
    }

    /// The struct type of a context's objects.
    mutating func schema(ofContext index: Int) -> JSONValue {
        let context = catalog.contexts[index]
        writing.append("context \(index)")
        defer { writing.removeLast() }
        return structType(OutputShape.fields(of: context, catalog: catalog))
    }

    private mutating func structType(_ fields: [OutputShape.Field]) -> JSONValue {
        let written = fields.map { field -> JSONValue in
            let (type, nullable, holdsText) = dataType(field.shape)
            let metadata: JSONValue =
                Self.holdsDecimals(field.shape)
                ? ["mappings.type": "Decimal"] : holdsText ? ["mappings.type": "JSON"] : [:]
            return [
                "name": .string(field.name), "type": type,
                "nullable": .bool(field.nullable || !field.required || nullable), "metadata": metadata,
            ]
        }
        return ["type": "struct", "fields": .array(written)]
    }

    /// The Spark type of a value; whether it may be null even where the field says not; and
    /// whether its strings (or those of its arrays and maps) hold JSON text.
    private mutating func dataType(_ shape: OutputShape) -> (JSONValue, Bool, Bool) {
        switch shape {
        case .json: return ("string", false, true)
        // A discriminator is text to Spark, whatever its JSON kind (a number read as a string
        // is its digits).
        case .discriminator: return ("string", false, false)
        case .object(_, let fields): return (structType(fields), false, false)
        case .converted(let type): return dataType(type)
        case .built(let index, let collection):
            if writing.contains("context \(index)") { return ("string", false, true) }
            if case .either = collection { return ("string", false, true) }
            return (Self.collected(schema(ofContext: index), collection), false, false)
        case .alternatives(let contexts, let tag, let collection):
            if contexts.contains(where: { writing.contains("context \($0)") }) { return ("string", false, true) }
            let element = merged(
                contexts.map { context in
                    (tag.field(for: context, catalog: catalog).map { [$0] } ?? [])
                        + OutputShape.fields(of: catalog.contexts[context], catalog: catalog)
                })
            if case .either = collection { return ("string", false, true) }
            return (Self.collected(element, collection), false, false)
        }
    }

    /// `element` in the arrays and maps `collection` nests it in (`.either` is written apart).
    private static func collected(_ element: JSONValue, _ collection: OutputShape.Collection) -> JSONValue {
        switch collection {
        case .single, .either: element
        case .array(let inner): array(collected(element, inner), containsNull: false)
        case .dictionary(let inner): map(collected(element, inner), containsNull: false)
        }
    }

    /// One struct for objects of several shapes (a union's members): every field of each, in
    /// the order first met, all nullable (a member lacks the others' fields); a field two
    /// members give different types becomes a string of its JSON text.
    private mutating func merged(_ shapes: [[OutputShape.Field]]) -> JSONValue {
        var fields: [OutputShape.Field] = []
        var types: [JSONValue] = []
        for field in shapes.joined() {
            let type = dataType(field.shape).0
            guard let index = fields.firstIndex(where: { $0.name == field.name }) else {
                fields.append(OutputShape.Field(name: field.name, shape: field.shape, nullable: true, required: true))
                types.append(type)
                continue
            }
            if types[index] != type {
                fields[index] = OutputShape.Field(name: field.name, shape: .json, nullable: true, required: true)
            }
        }
        return structType(fields)
    }

    private mutating func dataType(_ type: TypeReference) -> (JSONValue, Bool, Bool) {
        switch type {
        case .string, .url, .uuid, .enumeration, .decimal: return ("string", false, false)
        case .json: return ("string", false, true)
        case .int: return ("long", false, false)
        case .double: return ("double", false, false)
        case .bool: return ("boolean", false, false)
        case .date: return ("timestamp", false, false)
        case .model(let name):
            guard let model = catalog.models[name], !writing.contains("model " + name) else {
                return ("string", false, true)
            }
            writing.append("model " + name)
            defer { writing.removeLast() }
            return (structType(OutputShape.fields(convertedFrom: model)), false, false)
        case .union(let members):
            let models = members.compactMap { catalog.models[$0] }
            guard models.count == members.count, !members.contains(where: { writing.contains("model " + $0) }) else {
                return ("string", false, true)
            }
            writing += members.map { "model " + $0 }
            defer { writing.removeLast(members.count) }
            return (merged(models.map(OutputShape.fields(convertedFrom:))), false, false)
        // A JSON element may be JSON's null, which Spark reads as null, whatever the type says.
        case .array(let element), .set(let element):
            let (inner, _, holdsText) = dataType(element.unwrapped)
            return (Self.array(inner, containsNull: element.unwrapped != element || element == .json), false, holdsText)
        case .dictionary(let value):
            let (inner, _, holdsText) = dataType(value.unwrapped)
            return (Self.map(inner, containsNull: value.unwrapped != value || value == .json), false, holdsText)
        case .optional(let wrapped):
            let (inner, _, holdsText) = dataType(wrapped)
            return (inner, true, holdsText)
        }
    }

    /// Whether a value of `shape` is a decimal, or an array or dictionary of them.
    private static func holdsDecimals(_ shape: OutputShape) -> Bool {
        guard case .converted(var type) = shape else { return false }
        while true {
            switch type {
            case .decimal: return true
            case .array(let inner), .dictionary(let inner), .optional(let inner), .set(let inner): type = inner
            case .string, .int, .double, .bool, .url, .date, .uuid, .json, .model, .enumeration, .union: return false
            }
        }
    }

    private static func array(_ element: JSONValue, containsNull: Bool) -> JSONValue {
        ["type": "array", "elementType": element, "containsNull": .bool(containsNull)]
    }

    private static func map(_ value: JSONValue, containsNull: Bool) -> JSONValue {
        ["type": "map", "keyType": "string", "valueType": value, "valueContainsNull": .bool(containsNull)]
    }
}
