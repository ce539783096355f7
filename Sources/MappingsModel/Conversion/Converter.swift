import Foundation
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

    package init(models: [String: Model], requiresValues: Bool = true) {
        self.models = models
        self.requiresValues = requiresValues
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

    private func convert(
        _ value: JSONValue, to type: TypeReference, dateFormat: DateFormats?, path: () -> String,
        failures: inout [ConversionFailure]
    ) -> Value {
        func fail(_ message: String) -> Value {
            failures.append(ConversionFailure(relativePath: path(), message: message))
            return .null
        }
        func mismatch() -> Value {
            fail("expected \(type), found \(Self.describe(value))")
        }
        if case .optional(let wrapped) = type {
            if case .null = value { return .null }
            return convert(value, to: wrapped, dateFormat: dateFormat, path: path, failures: &failures)
        }
        switch type {
        case .json:
            return .json(value)
        case .string:
            switch value {
            case .string(let string): return .string(string)
            case .integer(let integer): return .string(String(integer))
            case .double(let double): return .string(Self.format(double))
            case .number(let number): return .string(number.literal)
            case .bool(let bool): return .string(bool ? "true" : "false")
            default: return mismatch()
            }
        case .int:
            switch value {
            case .integer(let integer): return .int(Int(integer))
            case .double(let double):
                guard let exact = Int(exactly: double) else {
                    return fail(Self.intFailure(value, DecimalDigits(double)))
                }
                return .int(exact)
            case .number(let number):
                guard let exact = number.int64 else { return fail(Self.intFailure(value, number.digits)) }
                return .int(Int(exact))
            case .string(let string):
                let trimmed = string.trimmingSpaces
                guard let integer = Int(trimmed) else {
                    let digits = Self.isNumberLiteral(trimmed) ? DecimalDigits(literal: trimmed) : nil
                    guard let exact = digits?.int64 else { return fail(Self.intFailure(value, digits)) }
                    return .int(Int(exact))
                }
                return .int(integer)
            default: return mismatch()
            }
        case .double:
            switch value {
            case .integer(let integer):
                let double = Double(integer)
                guard Int64(exactly: double) == integer else { return fail(Self.doubleFailure(value, double)) }
                return .double(double)
            case .double(let double): return .double(double)
            case .number(let number):
                guard number.isExactDouble else { return fail(Self.doubleFailure(value, number.double)) }
                return .double(number.double)
            case .string(let string):
                let trimmed = string.trimmingSpaces
                guard Self.isNumberLiteral(trimmed), let digits = DecimalDigits(literal: trimmed),
                    let double = Double(trimmed)
                else {
                    return fail("expected Double, found \(Self.describe(value)), which is not a number")
                }
                guard DecimalDigits(double) == digits else { return fail(Self.doubleFailure(value, double)) }
                return .double(double)
            default: return mismatch()
            }
        case .bool:
            switch value {
            case .bool(let bool): return .bool(bool)
            case .integer(0): return .bool(false)
            case .integer(1): return .bool(true)
            case .number(let number) where number.int64 == 0 || number.int64 == 1: return .bool(number.int64 == 1)
            case .string(let string):
                switch string.trimmingSpaces.lowercased() {
                case "true", "yes", "1": return .bool(true)
                case "false", "no", "0": return .bool(false)
                default: return fail("expected Bool, found \(Self.describe(value)); write true, false, yes, no, 1 or 0")
                }
            default: return mismatch()
            }
        case .decimal:
            switch value {
            case .integer(let integer): return .decimal(Decimal(integer))
            case .double(let double):
                return Self.exactDecimal(Self.format(double)).map(Value.decimal) ?? fail(Self.decimalFailure(value))
            case .number(let number):
                return Self.exactDecimal(number.literal).map(Value.decimal) ?? fail(Self.decimalFailure(value))
            case .string(let string):
                let trimmed = string.trimmingSpaces
                guard Self.isNumberLiteral(trimmed) else {
                    return fail("expected Decimal, found \(Self.describe(value)), which is not a number")
                }
                return Self.exactDecimal(trimmed).map(Value.decimal) ?? fail(Self.decimalFailure(value))
            default: return mismatch()
            }
        case .url:
            guard case .string(let string) = value else { return mismatch() }
            guard !string.isEmpty, !Self.hasSpaceOrNewline(string),
                let url = URL(string: string, encodingInvalidCharacters: false)
            else {
                return fail("expected URL, found \(Self.describe(value)), which is not a valid URL")
            }
            return .url(url)
        case .uuid:
            guard case .string(let string) = value else { return mismatch() }
            guard let uuid = UUID(uuidString: string) else {
                return fail("expected UUID, found \(Self.describe(value)), which is not a UUID")
            }
            return .uuid(uuid)
        case .date:
            switch Self.date(from: value, formats: dateFormat) {
            case .success(let date): return .date(date)
            case .failure(let failure): return fail(failure.message)
            }
        case .model(let name):
            guard let model = models[name] else { return fail("the model \"\(name)\" is not declared") }
            guard case .object(let object) = value else { return mismatch() }
            var instance = ModelObject(model: model)
            for (slot, property) in model.properties.enumerated() {
                // By property name, as a context would be: a non-optional property needs a value.
                guard let member = object[property.name], member != .null else {
                    if !requiresValues { continue }
                    if case .optional = property.type { continue }
                    failures.append(
                        ConversionFailure(
                            relativePath: path() + "." + property.name,
                            message: "missing required value for \(model.name).\(property.name)", isMissingValue: true))
                    continue
                }
                instance.slots[slot] = convert(
                    member, to: property.type, dateFormat: nil,
                    path: { path() + "." + property.name }, failures: &failures)
            }
            return .object(instance)
        case .array(let element):
            guard case .array(let elements) = value else { return mismatch() }
            return .array(
                elements.enumerated().map { index, item in
                    convert(
                        item, to: element, dateFormat: dateFormat, path: { path() + "[\(index)]" }, failures: &failures)
                })
        case .dictionary(let element):
            guard case .object(let object) = value else { return mismatch() }
            return .dictionary(
                ValueDictionary(
                    object.members.map { member in
                        (
                            member.key,
                            convert(
                                member.value, to: element, dateFormat: dateFormat,
                                path: { path() + "." + member.key }, failures: &failures)
                        )
                    }))
        case .optional:
            preconditionFailure("optional types are unwrapped above")
        }
    }

    /// Whether `string` holds a space or a line break (which no URL has), by its UTF-8 bytes:
    /// U+0020, LF, VT, FF, CR, NEL (C2 85), LS and PS (E2 80 A8/A9).
    static func hasSpaceOrNewline(_ string: String) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in string.utf8 {
            switch byte {
            case 0x20, 0x0A, 0x0B, 0x0C, 0x0D: return true
            case 0x85 where previous.1 == 0xC2: return true
            case 0xA8 where previous == (0xE2, 0x80), 0xA9 where previous == (0xE2, 0x80): return true
            default: previous = (previous.1, byte)
            }
        }
        return false
    }

    /// The shortest text that reads back as the same double (`0.1`, `1e+21`).
    static func format(_ double: Double) -> String { JSONNumber.text(of: double) }

    /// Whether `text` is a decimal number as JSON writes one (an optional '-' or '+' first).
    static func isNumberLiteral(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        if scalars.first == "-" || scalars.first == "+" { scalars = scalars.dropFirst() }
        let digits = scalars.prefix(while: { ("0"..."9").contains($0) })
        scalars = scalars.dropFirst(digits.count)
        var fraction = 0
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            fraction = scalars.prefix(while: { ("0"..."9").contains($0) }).count
            scalars = scalars.dropFirst(fraction)
        }
        guard digits.count + fraction > 0 else { return false }
        if scalars.first == "e" || scalars.first == "E" {
            scalars = scalars.dropFirst()
            if scalars.first == "-" || scalars.first == "+" { scalars = scalars.dropFirst() }
            let exponent = scalars.prefix(while: { ("0"..."9").contains($0) }).count
            guard exponent > 0 else { return false }
            scalars = scalars.dropFirst(exponent)
        }
        return scalars.isEmpty
    }

    /// A short rendering of a value for messages: `string "abc"`, `number 3.5`, `object`.
    package static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let bool): return "boolean \(bool)"
        case .integer(let integer): return "number \(integer)"
        case .double(let double): return "number \(format(double))"
        case .number(let number): return "number \(shortened(number.literal))"
        case .string(let string):
            return "string \"\(shortened(string))\""
        case .array(let array): return "array of \(array.count)"
        case .object(let object): return "object of \(object.count) key\(object.count == 1 ? "" : "s")"
        }
    }
}
