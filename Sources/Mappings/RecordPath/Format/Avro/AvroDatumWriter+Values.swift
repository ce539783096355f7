import MappingsJSON

extension AvroDatumWriter {
    /// A float or a double: any finite JSON number, the nearest value of the type (a float
    /// schema asks for a float's precision); a whole number a double cannot hold exactly is an
    /// error.
    func writeFloat(_ value: JSONValue, single: Bool, _ path: [String], _ output: inout [UInt8]) throws(AvroDatumError)
    {
        let double: Double
        switch value {
        case .integer(let integer):
            guard let exact = Double(exactly: integer) else {
                throw failure("the integer \(integer) has more digits than a double keeps", path)
            }
            double = exact
        case .double(let value): double = value
        case .number(let number) where number.double.isFinite: double = number.double
        default:
            throw failure("expected a \(single ? "float" : "double"), found \(JSONWriter.messageText(value))", path)
        }
        if single {
            withUnsafeBytes(of: Float(double).bitPattern.littleEndian) { output.append(contentsOf: $0) }
        } else {
            withUnsafeBytes(of: double.bitPattern.littleEndian) { output.append(contentsOf: $0) }
        }
    }

    /// A string: a JSON string as it is, a number as its literal text (a `Decimal` keeps its
    /// digits), any other JSON value (an entry without a type) as its JSON text; not `null`.
    func writeString(_ value: JSONValue, _ path: [String], _ output: inout [UInt8]) throws(AvroDatumError) {
        switch value {
        case .string(let text): Self.appendString(text, to: &output)
        case .null: throw failure("expected a string, found null", path)
        case .integer, .double, .number, .bool, .array, .object:
            Self.appendString(JSONWriter.string(value), to: &output)
        }
    }

    /// The bytes a base64 string (RFC 4648, padded or not) holds.
    func decodeBase64(_ text: String, _ path: [String]) throws(AvroDatumError) -> [UInt8] {
        var bytes: [UInt8] = []
        var word: UInt32 = 0
        var bits = 0
        for character in text.utf8 where character != UInt8(ascii: "=") {
            guard let sextet = Self.sextets[Int(character)] else {
                throw failure("expected base64 bytes, found \(JSONWriter.quotedForMessage(text))", path)
            }
            word = word << 6 | UInt32(sextet)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt32(bits)))
            }
        }
        return bytes
    }

    /// Each byte's base64 value (`nil`: not in the alphabet).
    static let sextets: [UInt8?] = {
        var table = [UInt8?](repeating: nil, count: 256)
        for (position, character) in AvroBase64.alphabet.enumerated() { table[Int(character)] = UInt8(position) }
        return table
    }()
}
