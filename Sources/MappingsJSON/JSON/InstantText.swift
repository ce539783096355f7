/// The instants the writer writes (`JSONWriter.writeISO8601`), read back as microseconds since
/// 1970: what Spark's rows, the Python module's values and Arrow's columns hold of a date.
package enum InstantText {
    /// Microseconds since 1970 of `2012-08-29T14:40:05Z` (a fraction of up to six digits, any
    /// year the writer writes, `Z` or an offset `±hh:mm`), or `nil`.
    package static func microseconds(iso8601 text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var cursor = DigitCursor(text: text)
        let negative = cursor.take(UInt8(ascii: "-"))
        var digits = 0
        while cursor.position + digits < text.count, text[cursor.position + digits] &- 48 < 10 { digits += 1 }
        guard digits >= 1, digits <= 18, var year = cursor.number(digits) else { return nil }
        if negative { year = -year }
        guard cursor.take(UInt8(ascii: "-")), let month = cursor.number(2), cursor.take(UInt8(ascii: "-")),
            let day = cursor.number(2), cursor.take(UInt8(ascii: "T")), let hour = cursor.number(2),
            cursor.take(UInt8(ascii: ":")), let minute = cursor.number(2), cursor.take(UInt8(ascii: ":")),
            let second = cursor.number(2), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var micros = 0
        if cursor.take(UInt8(ascii: ".")) {
            var width = 0
            while cursor.position < text.count, text[cursor.position] &- 48 < 10 {
                if width < 6 { micros = micros * 10 + Int(text[cursor.position] - 48) }
                width += 1
                cursor.position += 1
            }
            guard width >= 1, width <= 6 else { return nil }
            for _ in width..<6 { micros *= 10 }
        }
        var offset = 0
        if !cursor.take(UInt8(ascii: "Z")) {
            guard cursor.position < text.count else { return nil }
            let sign = text[cursor.position] == UInt8(ascii: "-") ? -1 : 1
            guard cursor.take(UInt8(ascii: "+")) || cursor.take(UInt8(ascii: "-")), let hours = cursor.number(2),
                cursor.take(UInt8(ascii: ":")), let minutes = cursor.number(2)
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard cursor.position == text.count else { return nil }
        let days = Self.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return nil }
        return Int64(scaled + micros)
    }

    /// Reads fixed-width numbers and single bytes of a date's text.
    private struct DigitCursor {
        let text: UnsafeBufferPointer<UInt8>
        var position = 0

        mutating func number(_ width: Int) -> Int? {
            guard position + width <= text.count else { return nil }
            var value = 0
            for index in position..<(position + width) {
                let digit = text[index] &- 48
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            position += width
            return value
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard position < text.count, text[position] == byte else { return false }
            position += 1
            return true
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    private static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
