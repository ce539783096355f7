import MappingsJSON

extension AvroSchema {
    /// The logical type `object` declares, when it is valid on `kind`; `nil` for none, for one
    /// the format does not know and for an invalid one (the value then reads as `kind`, as the
    /// specification says).
    static func logical(_ object: JSONObject, on kind: Kind) -> Logical? {
        guard case .string(let name)? = object["logicalType"] else { return nil }
        switch (name, kind) {
        case ("decimal", .bytes), ("decimal", .fixed): return decimal(object, on: kind)
        case ("date", .int): return .date
        case ("time-millis", .int): return .timeMillis
        case ("time-micros", .long): return .timeMicros
        case ("timestamp-millis", .long): return .timestampMillis
        case ("timestamp-micros", .long): return .timestampMicros
        case ("local-timestamp-millis", .long): return .localTimestampMillis
        case ("local-timestamp-micros", .long): return .localTimestampMicros
        case ("uuid", .string): return .uuid
        case ("duration", .fixed(_, 12)): return .duration
        default: return nil
        }
    }

    /// A decimal's precision and scale, when valid: 0 ≤ scale ≤ precision, and a fixed's bytes
    /// able to hold `precision` digits.
    private static func decimal(_ object: JSONObject, on kind: Kind) -> Logical? {
        guard case .integer(let precision)? = object["precision"], precision > 0 else { return nil }
        var scale: Int64 = 0
        if let given = object["scale"] {
            guard case .integer(let value) = given else { return nil }
            scale = value
        }
        guard scale >= 0, scale <= precision else { return nil }
        if case .fixed(_, let size) = kind, Double(precision) > (Double(8 * size - 1) * 0.301_029_995_663_981_2) {
            return nil
        }
        return .decimal(precision: Int(precision), scale: Int(scale))
    }
}

extension AvroSchema.Logical {
    /// The logical type's name in a schema (`timestamp-micros`).
    package var name: String {
        switch self {
        case .decimal: "decimal"
        case .date: "date"
        case .timeMillis: "time-millis"
        case .timeMicros: "time-micros"
        case .timestampMillis: "timestamp-millis"
        case .timestampMicros: "timestamp-micros"
        case .localTimestampMillis: "local-timestamp-millis"
        case .localTimestampMicros: "local-timestamp-micros"
        case .uuid: "uuid"
        case .duration: "duration"
        }
    }
}
