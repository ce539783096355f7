import MappingsJSON

extension AvroDatumWriter {
    /// A value of a logical type, from what `AvroDatumReader` writes for it: a decimal from a
    /// number (or a string of one) with at most the scale's places, dates and timestamps from
    /// ISO 8601 text with no more digits than the unit keeps, a duration from its object.
    func writeLogical(
        _ value: JSONValue, _ logical: AvroSchema.Logical, _ kind: AvroSchema.Kind, _ path: [String],
        _ output: inout [UInt8]
    ) throws(AvroDatumError) {
        switch (logical, value) {
        case (.decimal(let precision, let scale), _):
            try writeDecimal(value, precision: precision, scale: scale, kind: kind, path, &output)
        case (.uuid, .string(let text)): Self.appendString(text, to: &output)
        case (.duration, .object(let object)):
            for key in ["months", "days", "milliseconds"] {
                guard let count = object[key].flatMap(Self.integer), let part = UInt32(exactly: count) else {
                    throw failure(
                        "a duration is an object of \"months\", \"days\" and \"milliseconds\", each 0 to 4294967295",
                        path)
                }
                withUnsafeBytes(of: part.littleEndian) { output.append(contentsOf: $0) }
            }
        case (.date, .string(let text)):
            guard let days = AvroTime.days(in: text) else {
                throw failure("expected a date (2024-01-31), found \(JSONWriter.quotedForMessage(text))", path)
            }
            Self.appendVarint(days, to: &output)
        case (.timeMillis, .string(let text)), (.timeMicros, .string(let text)):
            let perSecond: Int64 = logical == .timeMillis ? 1000 : 1_000_000
            guard let units = AvroTime.timeOfDay(in: text, perSecond: perSecond) else {
                throw failure("expected a time of day (12:00:00.123), found \(JSONWriter.quotedForMessage(text))", path)
            }
            Self.appendVarint(units, to: &output)
        case (.timestampMillis, .string(let text)), (.timestampMicros, .string(let text)),
            (.localTimestampMillis, .string(let text)), (.localTimestampMicros, .string(let text)):
            let millis = logical == .timestampMillis || logical == .localTimestampMillis
            let local = logical == .localTimestampMillis || logical == .localTimestampMicros
            guard let units = AvroTime.timestamp(in: text, perSecond: millis ? 1000 : 1_000_000, local: local) else {
                throw failure(
                    "expected an ISO 8601 date and time with at most \(millis ? 3 : 6) fractional digits\(local ? " and no offset" : ""), found \(JSONWriter.quotedForMessage(text))",
                    path)
            }
            Self.appendVarint(units, to: &output)
        default:
            throw failure("expected a \(logical.name), found \(JSONWriter.messageText(value))", path)
        }
    }

    /// A decimal's unscaled integer, two's complement big-endian: as short as it goes in bytes,
    /// sign-extended to a fixed's size.
    private func writeDecimal(
        _ value: JSONValue, precision: Int, scale: Int, kind: AvroSchema.Kind, _ path: [String], _ output: inout [UInt8]
    ) throws(AvroDatumError) {
        var decimal = value.decimalDigits
        if case .string(let text) = value { decimal = DecimalDigits(literal: text) }
        guard let decimal else {
            throw failure("expected a decimal number, found \(JSONWriter.messageText(value))", path)
        }
        let shift = decimal.exponent + scale
        guard decimal.digits.isEmpty || shift >= 0 else {
            throw failure("\(JSONWriter.messageText(value)) has more decimal places than the scale \(scale)", path)
        }
        let digits = decimal.digits.isEmpty ? [] : decimal.digits + repeatElement(UInt8(ascii: "0"), count: shift)
        guard digits.count <= precision else {
            throw failure("\(JSONWriter.messageText(value)) has more digits than the precision \(precision)", path)
        }
        var bytes = AvroDecimal.twosComplement(digits: digits, negative: decimal.negative)
        if case .fixed(let name, let size) = kind {
            guard bytes.count <= size else {
                throw failure("\(JSONWriter.messageText(value)) does not fit the fixed \"\(name)\"", path)
            }
            bytes.insert(contentsOf: repeatElement(decimal.negative ? 0xFF : 0, count: size - bytes.count), at: 0)
        } else {
            Self.appendVarint(Int64(bytes.count), to: &output)
        }
        output.append(contentsOf: bytes)
    }
}
