import MappingsJSON

/// Dates and times as ISO 8601 text, from Avro's counts since 1970-01-01 (and since midnight).
package enum AvroTime {
    /// `2024-01-31` for `days` after 1970-01-01; a year past 9999 or before 1 is written with
    /// its sign and every digit (`+10000-01-01`, `-0001-12-31`), as ISO 8601's expanded years.
    package static func appendDate(days: Int64, to output: inout [UInt8]) {
        let (year, month, day) = JSONWriter.civil(fromDays: Int(days))
        if year > 9999 { output.append(UInt8(ascii: "+")) }
        if year < 0 { output.append(UInt8(ascii: "-")) }
        appendDigits(abs(year), width: 4, to: &output)
        output.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, to: &output)
        output.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, to: &output)
    }

    /// `12:00:00.123` (or `.123456`): `value` counts `perSecond` units since midnight.
    package static func appendTime(_ value: Int64, perSecond: Int64, to output: inout [UInt8]) {
        let seconds = value / perSecond
        appendDigits(Int(seconds / 3600), width: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        appendDigits(Int(seconds / 60 % 60), width: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        appendDigits(Int(seconds % 60), width: 2, to: &output)
        output.append(UInt8(ascii: "."))
        appendDigits(Int(value % perSecond), width: perSecond == 1000 ? 3 : 6, to: &output)
    }

    /// `2024-01-31T12:00:00.123Z`: `value` counts `perSecond` units since 1970-01-01T00:00:00Z;
    /// every digit of the unit is written (3 or 6), so the text reads back as the same count.
    package static func appendTimestamp(_ value: Int64, perSecond: Int64, zoned: Bool, to output: inout [UInt8]) {
        // Floor divisions: a moment before 1970 is a day before, plus a positive time of day.
        let unitsPerDay = 86_400 * perSecond
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: unitsPerDay)
        let days = remainder < 0 ? quotient - 1 : quotient
        let ofDay = remainder < 0 ? remainder + unitsPerDay : remainder
        appendDate(days: days, to: &output)
        output.append(UInt8(ascii: "T"))
        appendTime(ofDay, perSecond: perSecond, to: &output)
        if zoned { output.append(UInt8(ascii: "Z")) }
    }

    static func appendDigits(_ value: Int, width: Int, to output: inout [UInt8]) {
        let text = String(value)
        if text.utf8.count < width {
            output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - text.utf8.count))
        }
        output.append(contentsOf: text.utf8)
    }
}
