import MappingsJSON

extension AvroDatumReader {
    /// Appends a value of a logical type, exactly: a decimal as a number with its scale's digits
    /// (`-123.40`), a date as `2024-01-31`, a timestamp as ISO 8601 text with every digit of its
    /// unit (`2024-01-31T12:00:00.123456Z`; a local timestamp without the `Z`), a time of day as
    /// `12:00:00.123`, a duration as an object of its three counts, a uuid as its string.
    func logical(
        _ logical: AvroSchema.Logical, _ kind: AvroSchema.Kind, _ cursor: inout Cursor, _ output: inout [UInt8]
    ) throws(AvroDatumError) {
        let start = cursor.position
        switch logical {
        case .decimal(let precision, let scale):
            let size: Int
            if case .fixed(_, let fixedSize) = kind { size = fixedSize } else { size = try cursor.length("decimal") }
            // A decimal of `precision` digits takes at most precision / 2.4 + 1 bytes; far more is corrupt.
            guard size <= precision + 8 else {
                throw cursor.failure("the decimal's \(size) bytes are more than \(precision) digits take", at: start)
            }
            let digits = AvroDecimal.text(unscaled: try cursor.take(size, "decimal"), scale: scale)
            output.append(contentsOf: digits.utf8)
        case .date:
            let days = try cursor.varint("date", bits: 32)
            output.append(UInt8(ascii: "\""))
            AvroTime.appendDate(days: days, to: &output)
            output.append(UInt8(ascii: "\""))
        case .timeMillis, .timeMicros:
            let perSecond: Int64 = logical == .timeMillis ? 1000 : 1_000_000
            let value = try cursor.varint("time", bits: logical == .timeMillis ? 32 : 64)
            guard value >= 0, value < 86_400 * perSecond else {
                throw cursor.failure("the time of day \(value) is not within a day", at: start)
            }
            output.append(UInt8(ascii: "\""))
            AvroTime.appendTime(value, perSecond: perSecond, to: &output)
            output.append(UInt8(ascii: "\""))
        case .timestampMillis, .timestampMicros, .localTimestampMillis, .localTimestampMicros:
            let value = try cursor.varint("timestamp")
            let millis = logical == .timestampMillis || logical == .localTimestampMillis
            let zoned = logical == .timestampMillis || logical == .timestampMicros
            output.append(UInt8(ascii: "\""))
            AvroTime.appendTimestamp(value, perSecond: millis ? 1000 : 1_000_000, zoned: zoned, to: &output)
            output.append(UInt8(ascii: "\""))
        case .uuid: try string(&cursor, &output)
        case .duration:
            let raw = try cursor.take(12, "duration")
            let parts = (0..<3).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self).littleEndian }
            output.append(contentsOf: "{\"months\":\(parts[0]),\"days\":\(parts[1]),\"milliseconds\":\(parts[2])}".utf8)
        }
    }
}
