package import MappingsJSON

/// Converts JSON values to declared types, exactly or not at all.
///
/// Strings and numbers convert both ways without loss (a 64-bit integer stays exact);
/// booleans accept `true false yes no 1 0` in any case and the numbers 0 and 1; URLs must
/// parse as written; dates accept ISO 8601, RFC 3339, RFC 2822 and Unix seconds (or a
/// `dateFormat`); objects become models by property name; arrays and dictionaries convert
/// element by element. What cannot convert is a `ConversionFailure`, never a zero.
package struct Converter: Sendable {
    /// The models a conversion may build, by name.
    package let models: [String: Model]

    /// Whether a model built by name needs a value for each non-optional property. Objects read
    /// back from the tool's own output (`--into`, `serialize`) do not: there `null` means unset.
    package let requiresValues: Bool

    /// How the union entries of the catalog choose members, by their members
    /// (`UnionChoice.key(of:)`): how an object read back that carries its discriminator is
    /// converted to a union (before its shape is looked at).
    package let unionChoices: [String: [UnionChoice]]

    /// Strict conversions (`"@conversions": "strict"`): a value converts only from its own JSON
    /// kind — a string to String, Date, URL, UUID or an enum, a number to Int, Double or
    /// Decimal, a boolean to Bool; every other coercion of the table is a failure.
    package let isStrict: Bool

    package init(
        models: [String: Model], requiresValues: Bool = true, unionChoices: [String: [UnionChoice]] = [:],
        isStrict: Bool = false
    ) {
        self.models = models
        self.requiresValues = requiresValues
        self.unionChoices = unionChoices
        self.isStrict = isStrict
    }

    /// The same conversions in tables of their own: a copy that threads can use without
    /// touching the reference counts of the original's.
    package func independentCopy() -> Converter {
        Converter(
            models: Dictionary(uniqueKeysWithValues: Array(models)), requiresValues: requiresValues,
            unionChoices: Dictionary(uniqueKeysWithValues: Array(unionChoices)), isStrict: isStrict)
    }

    /// The same conversions for objects read back from the tool's own output (`--into`,
    /// `serialize`), where `null` means unset: no value is required.
    package var readingBack: Converter {
        Converter(models: models, requiresValues: false, unionChoices: unionChoices, isStrict: isStrict)
    }

    /// The same conversions, strict or lenient.
    package func strict(_ strict: Bool) -> Converter {
        guard strict != isStrict else { return self }
        return Converter(models: models, requiresValues: requiresValues, unionChoices: unionChoices, isStrict: strict)
    }

    /// Why `value` does not convert to `type` under strict conversions, or `nil` when its JSON
    /// kind is the type's own (`null` is left to the conversion, which says what it says of it).
    static func strictMismatch(_ value: JSONValue, _ type: TypeReference, dateFormat: DateFormats? = nil) -> String? {
        let own: Bool
        switch (type, value) {
        case (_, .null): return nil
        // A date that `@unixSeconds` or `@unixMilliseconds` reads is written as a number.
        case (.date, .integer), (.date, .double), (.date, .number):
            own = dateFormat?.readsNumbers == true
        case (.string, .string), (.url, .string), (.uuid, .string), (.date, .string), (.enumeration, .string):
            own = true
        case (.int, .integer), (.int, .double), (.int, .number): own = true
        case (.double, .integer), (.double, .double), (.double, .number): own = true
        case (.decimal, .integer), (.decimal, .double), (.decimal, .number): own = true
        case (.bool, .bool): own = true
        case (.string, _), (.url, _), (.uuid, _), (.date, _), (.enumeration, _), (.int, _), (.double, _),
            (.decimal, _), (.bool, _):
            own = false
        default: return nil
        }
        guard !own else { return nil }
        let kind =
            switch type {
            case .int, .double, .decimal: "a number"
            case .bool: "a boolean"
            case .date: "a string (a number with \"@unixSeconds\" or \"@unixMilliseconds\")"
            default: "a string"
            }
        return "expected \(type), found \(describe(value)): strict conversions take only \(kind)"
    }

    /// Converts `value` to `type`; failures (there may be several, inside collections and
    /// models) are appended to `failures`, and the value converts as far as it can.
    package func convert(
        _ value: JSONValue, to type: TypeReference, dateFormat: String? = nil, failures: inout [ConversionFailure]
    ) -> Value {
        let formats = dateFormat.map { DateFormats([$0]) ?? DateFormats(pattern: $0) }
        return convert(value, to: type, dateFormat: formats, path: { "" }, failures: &failures)
    }

    /// Converts with a compiled `@dateFormat`: what mapping runs use.
    package func convert(
        _ value: JSONValue, to type: TypeReference, dateFormat: DateFormats?, failures: inout [ConversionFailure]
    ) -> Value {
        convert(value, to: type, dateFormat: dateFormat, path: { "" }, failures: &failures)
    }

    /// Converts `value` to `type` at `path` (below the value first converted; built only when
    /// a failure is recorded): the one switch every value of a mapping run goes through.
    func convert(
        _ value: JSONValue, to type: TypeReference, dateFormat: DateFormats?, path: () -> String,
        failures: inout [ConversionFailure]
    ) -> Value {
        if isStrict, let mismatch = Self.strictMismatch(value, type, dateFormat: dateFormat) {
            var failure = ConversionFailure(relativePath: path(), message: mismatch)
            failure.partValue = Self.describe(value)
            failures.append(failure)
            return .null
        }
        switch type {
        case .optional(let wrapped):
            if case .null = value { return .null }
            return convert(value, to: wrapped, dateFormat: dateFormat, path: path, failures: &failures)
        case .json: return .json(value)
        case .string: return Self.convertString(value).recorded(at: path, of: value, in: &failures)
        case .int: return Self.convertInt(value).recorded(at: path, of: value, in: &failures)
        case .double: return Self.convertDouble(value).recorded(at: path, of: value, in: &failures)
        case .decimal: return Self.convertDecimal(value).recorded(at: path, of: value, in: &failures)
        case .bool: return Self.convertBool(value).recorded(at: path, of: value, in: &failures)
        case .url: return Self.convertURL(value).recorded(at: path, of: value, in: &failures)
        case .uuid: return Self.convertUUID(value).recorded(at: path, of: value, in: &failures)
        case .date: return Self.convertDate(value, formats: dateFormat).recorded(at: path, of: value, in: &failures)
        case .model(let name): return convertModel(value, named: name, path: path, failures: &failures)
        case .union(let members): return convertUnion(value, members: members, path: path, failures: &failures)
        case .enumeration(let enumeration):
            return Self.convertEnumeration(value, to: enumeration).recorded(at: path, of: value, in: &failures)
        case .array(let element):
            return convertArray(value, of: element, as: type, dateFormat: dateFormat, path: path, failures: &failures)
        case .dictionary(let element):
            return convertDictionary(
                value, of: element, as: type, dateFormat: dateFormat, path: path, failures: &failures)
        case .set(let element):
            return convertSet(value, of: element, as: type, dateFormat: dateFormat, path: path, failures: &failures)
        }
    }

    /// Records a failure at `path`; the `.null` that stands in for the value.
    static func fail(_ message: String, at path: () -> String, _ failures: inout [ConversionFailure]) -> Value {
        failures.append(ConversionFailure(relativePath: path(), message: message))
        return .null
    }

    /// Why `value` is not of a kind `type` converts from: `expected Int, found object of 2 keys`.
    static func mismatch(_ value: JSONValue, _ type: TypeReference) -> String {
        "expected \(type), found \(describe(value))"
    }

    /// The shortest text that reads back as the same double (`0.1`, `1e+21`).
    static func format(_ double: Double) -> String { JSONNumber.text(of: double) }

    /// A short rendering of a value for messages: `string "abc"`, `number 3.5`, `object`.
    package static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let bool): return "boolean \(bool)"
        case .integer(let integer): return "number \(integer)"
        case .double(let double): return "number \(format(double))"
        case .number(let number): return "number \(shortened(number.literal))"
        case .string(let string):
            return "string " + JSONWriter.quotedForMessage(string, limit: quotedLength)
        case .array(let array): return "array of \(array.count)"
        case .object(let object): return "object of \(object.count) key\(object.count == 1 ? "" : "s")"
        }
    }
}
