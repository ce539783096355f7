import Foundation
import MappingsJSON

/// Reads dates in the formats payloads use, without locale or time-zone surprises.
///
/// Recognized: ISO 8601 / RFC 3339 (`2012-08-29`, `2012-08-29T14:40:05Z`,
/// `2012-08-29 14:40:05.250+02:00`; no zone means UTC), RFC 2822
/// (`Wed, 29 Aug 2012 14:40:05 +0000`), and Unix time written as a number string. Each gives
/// a `DateReading`, exact, which `DateReading.date()` checks and turns into a `Date`.
package enum DateParser {
    /// Parses with an explicit pattern (`DateFormatter` syntax), in the POSIX locale, UTC unless the pattern has a zone.
    ///
    /// Making a `DateFormatter` costs far more than using one, and one may not be shared
    /// between threads, so each thread keeps its own per pattern.
    static func parse(_ text: String, format: String) -> Date? {
        FormatterCache.current.formatter(for: format).date(from: text)
    }

    /// Writes `date` with an explicit pattern, in the POSIX locale and UTC: what reverse
    /// mapping writes for an entry with `@dateFormat`, so that the pattern reads it back.
    static func format(_ date: Date, format: String) -> String {
        FormatterCache.current.formatter(for: format).string(from: date)
    }

    /// The `DateFormatter`s of one thread, by pattern.
    private final class FormatterCache {
        private var formatters: [String: DateFormatter] = [:]

        static var current: FormatterCache {
            let key = "Mappings.DateParser.FormatterCache"
            if let cache = Thread.current.threadDictionary[key] as? FormatterCache { return cache }
            let cache = FormatterCache()
            Thread.current.threadDictionary[key] = cache
            return cache
        }

        func formatter(for format: String) -> DateFormatter {
            if let formatter = formatters[format] { return formatter }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            formatters[format] = formatter
            return formatter
        }
    }

    /// A Unix time written as a number string, counting `unit`ths of a second (1 or 1000);
    /// `nil` when the text is no number, `.failure(.outOfRange)` when it is far out of range.
    static func unixTime(_ text: String, unit: Int) -> Result<DateReading, DateReading.Failure>? {
        let trimmed = text.trimmingSpaces
        guard Converter.isNumberLiteral(trimmed), let digits = DecimalDigits(literal: trimmed) else { return nil }
        guard let reading = DateReading(unix: digits, unit: unit) else { return .failure(.outOfRange) }
        return .success(reading)
    }

    static func iso8601(_ text: String) -> DateReading? {
        var scanner = Scanner(text.trimmingSpaces)
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
            let day = scanner.digits(2)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction: ArraySlice<UInt8> = []
        var offset = 0
        if !scanner.atEnd {
            guard scanner.take("T") || scanner.take("t") || scanner.take(" ") else { return nil }
            guard let h = scanner.digits(2), scanner.take(":"), let m = scanner.digits(2) else { return nil }
            hour = h
            minute = m
            if scanner.take(":") {
                guard let s = scanner.digits(2) else { return nil }
                second = s
                if scanner.take(".") || scanner.take(",") {
                    fraction = scanner.digitRun()
                    guard !fraction.isEmpty else { return nil }
                }
            }
            if scanner.take("Z") || scanner.take("z") {
                offset = 0
            } else if let sign = scanner.sign() {
                guard let zoneHour = scanner.digits(2) else { return nil }
                _ = scanner.take(":")
                let zoneMinute = scanner.digits(2) ?? 0
                guard zoneHour <= 23, zoneMinute <= 59 else { return nil }
                offset = sign * (zoneHour * 3600 + zoneMinute * 60)
            }
        }
        guard scanner.atEnd,
            let seconds = seconds(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
        else { return nil }
        return DateReading(seconds: seconds, fractionDigits: fraction)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let zones = [
        "UT": 0, "UTC": 0, "GMT": 0, "Z": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6,
        "PST": -8, "PDT": -7,
    ]

    static func rfc2822(_ text: String) -> DateReading? {
        var words = text.trimmingSpaces.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(
            String.init)
        if let first = words.first, first.hasSuffix(","), days.contains(first.dropLast().lowercased()) {
            words.removeFirst()
        }
        guard words.count == 5, let day = Int(words[0]), (1...2).contains(words[0].count),
            let monthIndex = months.firstIndex(of: words[1].lowercased()), let year = Int(words[2]),
            words[2].count == 4
        else { return nil }
        let time = words[3].split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(time.count), time.allSatisfy({ $0.count == 2 }),
            let hour = Int(time[0]), let minute = Int(time[1])
        else { return nil }
        let second = time.count == 3 ? Int(time[2]) : 0
        guard let second else { return nil }
        let zone = words[4]
        var offset: Int
        if let hours = zones[zone.uppercased()] {
            offset = hours * 3600
        } else {
            var scanner = Scanner(zone)
            guard let sign = scanner.sign(), let hh = scanner.digits(2), let mm = scanner.digits(2), scanner.atEnd,
                hh <= 23, mm <= 59
            else { return nil }
            offset = sign * (hh * 3600 + mm * 60)
        }
        return seconds(
            year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: second, offset: offset
        ).map { DateReading(seconds: $0) }
    }

    /// Seconds since 1970 of a calendar date and time at a UTC offset; `nil` when a field is
    /// out of its range (month 13, February 30, minute 60).
    package static func seconds(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offset: Int
    ) -> Int? {
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), (0...23).contains(hour),
            (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return days * 86_400 + hour * 3600 + minute * 60 + second - offset
    }

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given day of the proleptic Gregorian calendar.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        // Count from March, so that the leap day falls at the end of the counted year.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// A cursor over the characters of a date.
    /// Reads ASCII syntax from a string's UTF-8 bytes (a byte of a multi-byte character never
    /// equals an ASCII one, so such a character simply matches nothing).
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ text: String) { bytes = Array(text.utf8) }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ scalar: Unicode.Scalar) -> Bool {
            guard index < bytes.count, UInt32(bytes[index]) == scalar.value else { return false }
            index += 1
            return true
        }

        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte &- UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        mutating func digitRun() -> ArraySlice<UInt8> {
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
            return bytes[start..<index]
        }

        mutating func sign() -> Int? {
            if take("+") { return 1 }
            if take("-") { return -1 }
            return nil
        }
    }
}
