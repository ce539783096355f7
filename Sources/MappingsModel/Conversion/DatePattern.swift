import Foundation
import MappingsJSON

/// A `@dateFormat` pattern, compiled once when the catalog loads.
///
/// ICU's `DateFormatter` costs tens of microseconds per value, and it is lenient: it reads
/// `14` for `yyyy` as the year 14 (and then moves the day to fit a weekday), rolls April 31
/// into May 1, ignores a weekday that contradicts the date. Most patterns in payloads
/// (`EEE MMM dd HH:mm:ss Z yyyy`, `yyyy-MM-dd'T'HH:mm:ss.SSSZ`, `dd/MM/yyyy`) are fixed-width
/// fields and English names, read here straight from the UTF-8 bytes, strictly: each field
/// reads exactly its width, a field out of range is refused, a weekday or a day of the year
/// must agree with the date, and a fraction keeps its digits. What the compiled reader refuses
/// is an issue with the reason; it never goes to ICU.
///
/// A pattern with a letter the compiled reader does not know (`yy`, `QQQ`, `zzzz`…) is read by
/// `DateFormatter` (POSIX locale, UTC unless the pattern has a zone), and the date is then
/// written back with the pattern: unless it gives the value again (letter case aside), the
/// value is refused, so a lenient reading never moves a date silently. (Written back in UTC,
/// that check cannot be made for a pattern with a zone; such a value is taken as ICU reads it.)
package struct DatePattern: Sendable, Hashable {
    /// The pattern as written.
    let text: String
    /// The compiled fields; `nil` when the pattern uses something only ICU reads.
    private let fields: [Field]?
    /// The pattern letters of each field, for messages (`yyyy`, or the literal text).
    private let spellings: [String]
    /// Whether the pattern has a zone field (ICU's reading cannot then be checked by writing it back).
    private let hasZone: Bool

    enum Component: Sendable, Hashable {
        case year, month, day, hour, hour12, hour24From1, hour12From0, minute, second, dayOfYear
    }

    enum Field: Sendable, Hashable {
        /// Exactly `width` digits, or (width 0) one or two, or (width -1) one to four.
        case number(Component, width: Int)
        /// A fraction of a second written with `digits` digits (1 to 9), all kept.
        case fraction(digits: Int)
        case monthName(abbreviated: Bool)
        case weekdayName(abbreviated: Bool)
        case dayPeriod
        /// `+0100` (`Z`, `ZZ`, `ZZZ`).
        case basicOffset
        /// `+01:00`, or `Z` when `allowsZ` (`XXX`, `ZZZZZ`; `xxx` without `Z`).
        case extendedOffset(allowsZ: Bool)
        /// `+01` or `+0130` (`X`; `x` without `Z`), or `+0130` (`XX`; `xx` without `Z`).
        case shortOffset(allowsZ: Bool, minutes: MinutesPresence)
        /// `GMT`, `UTC`, `UT`, `Z` or a North American zone (`PST`, `EDT`…), or `GMT+01:00` (`z`…`zzz`, `ZZZZ`).
        case zoneName
        case literal([UInt8])
    }

    /// Whether a short offset writes minutes: `X`/`x` may (`+01`, `+0130`), `XX`/`xx` must.
    enum MinutesPresence: Sendable, Hashable {
        case optional, required
    }

    init(_ text: String) {
        self.text = text
        let compiled = Self.compile(text)
        self.fields = compiled?.fields
        self.spellings = compiled?.spellings ?? []
        self.hasZone = text.contains { "zZxXvVO".contains($0) }
    }

    /// Whether values are read without ICU.
    var isCompiled: Bool { fields != nil }

    /// Reads a value; the reason it is no date in this pattern, for the issue, on failure.
    func read(_ string: String) -> Result<DateReading, PatternMismatch> {
        guard let fields else { return readWithICU(string) }
        var string = string
        return string.withUTF8 { Self.read(fields, spellings: spellings, from: $0) }
    }

    /// Reads a value's UTF-8 bytes, as `read(_:)` reads its text; `nil` when the pattern is
    /// ICU's (not compiled), which reads text only.
    func read(bytes: UnsafeBufferPointer<UInt8>) -> Result<DateReading, PatternMismatch>? {
        guard let fields else { return nil }
        return Self.read(fields, spellings: spellings, from: bytes)
    }

    /// Why a value does not read in a pattern (`the year is "14", but "yyyy" reads 4 digits`).
    struct PatternMismatch: Error {
        var reason: String?
    }

    /// ICU's reading, kept only when writing the date back with the pattern gives the value.
    private func readWithICU(_ string: String) -> Result<DateReading, PatternMismatch> {
        guard let date = DateParser.parse(string, format: text) else { return .failure(PatternMismatch(reason: nil)) }
        if !hasZone {
            let written = DateParser.format(date, format: text)
            guard written.lowercased() == string.trimmingSpaces.lowercased() else {
                return .failure(
                    PatternMismatch(
                        reason:
                            "read leniently, it is \(JSONWriter.string(.string(written))) in this pattern, not the same text"
                    ))
            }
        }
        let parts = JSONWriter.instantParts(date)
        var reading = DateReading(seconds: parts.seconds)
        if parts.micros > 0 {
            reading = DateReading(
                seconds: parts.seconds, fractionDigits: Array(String(1_000_000 + parts.micros).utf8.dropFirst()))
        }
        return .success(reading)
    }

    // MARK: Compiling

    private static func compile(_ pattern: String) -> (fields: [Field], spellings: [String])? {
        let bytes = Array(pattern.utf8)
        var fields: [Field] = []
        var spellings: [String] = []
        var index = 0
        func appendLiteral(_ literal: [UInt8]) {
            if case .literal(let previous)? = fields.last {
                fields[fields.count - 1] = .literal(previous + literal)
                spellings[spellings.count - 1] = String(decoding: previous + literal, as: UTF8.self)
            } else {
                fields.append(.literal(literal))
                spellings.append(String(decoding: literal, as: UTF8.self))
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                var literal: [UInt8] = []
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "'") {
                    appendLiteral([byte])
                    index += 1
                    continue
                }
                while true {
                    guard index < bytes.count else { return nil }
                    if bytes[index] == UInt8(ascii: "'") {
                        if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "'") {
                            literal.append(byte)
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    literal.append(bytes[index])
                    index += 1
                }
                appendLiteral(literal)
                continue
            }
            guard isLetter(byte) else {
                guard byte < 0x80 else { return nil }
                appendLiteral([byte])
                index += 1
                continue
            }
            var count = 0
            while index < bytes.count, bytes[index] == byte {
                count += 1
                index += 1
            }
            guard let field = field(letter: byte, count: count) else { return nil }
            fields.append(field)
            spellings.append(String(repeating: Character(Unicode.Scalar(byte)), count: count))
        }
        // A field of varying width right before another number is ambiguous: ICU decides.
        for (offset, field) in fields.enumerated() where offset + 1 < fields.count {
            guard case .number(_, let width) = field, width <= 0 else { continue }
            switch fields[offset + 1] {
            case .number, .fraction: return nil
            default: continue
            }
        }
        return (fields, spellings)
    }

    private static func field(letter: UInt8, count: Int) -> Field? {
        switch (Character(Unicode.Scalar(letter)), count) {
        case ("y", 1): .number(.year, width: -1)
        case ("y", 4): .number(.year, width: 4)
        case ("M", 1): .number(.month, width: 0)
        case ("M", 2): .number(.month, width: 2)
        case ("M", 3): .monthName(abbreviated: true)
        case ("M", 4): .monthName(abbreviated: false)
        case ("d", 1): .number(.day, width: 0)
        case ("d", 2): .number(.day, width: 2)
        case ("D", 3): .number(.dayOfYear, width: 3)
        case ("H", 1): .number(.hour, width: 0)
        case ("H", 2): .number(.hour, width: 2)
        case ("h", 1): .number(.hour12, width: 0)
        case ("h", 2): .number(.hour12, width: 2)
        case ("k", 1): .number(.hour24From1, width: 0)
        case ("k", 2): .number(.hour24From1, width: 2)
        case ("K", 1): .number(.hour12From0, width: 0)
        case ("K", 2): .number(.hour12From0, width: 2)
        case ("m", 1): .number(.minute, width: 0)
        case ("m", 2): .number(.minute, width: 2)
        case ("s", 1): .number(.second, width: 0)
        case ("s", 2): .number(.second, width: 2)
        case ("S", 1...9): .fraction(digits: count)
        case ("E", 1...3): .weekdayName(abbreviated: true)
        case ("E", 4): .weekdayName(abbreviated: false)
        case ("a", 1): .dayPeriod
        case ("Z", 1...3): .basicOffset
        case ("Z", 4), ("z", 1...3): .zoneName
        case ("Z", 5), ("X", 3): .extendedOffset(allowsZ: true)
        case ("x", 3): .extendedOffset(allowsZ: false)
        case ("X", 1): .shortOffset(allowsZ: true, minutes: .optional)
        case ("X", 2): .shortOffset(allowsZ: true, minutes: .required)
        case ("x", 1): .shortOffset(allowsZ: false, minutes: .optional)
        case ("x", 2): .shortOffset(allowsZ: false, minutes: .required)
        default: nil
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    // MARK: Reading

    private static let monthNames: [[UInt8]] = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
        "december",
    ].map { Array($0.utf8) }
    private static let weekdayNames: [[UInt8]] = [
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    ].map { Array($0.utf8) }
    /// Zone names a `z` field reads, with their offsets in hours (those of RFC 2822).
    private static let zoneNames: [(name: [UInt8], hours: Int)] = [
        ("GMT", 0), ("UTC", 0), ("UT", 0), ("EST", -5), ("EDT", -4), ("CST", -6), ("CDT", -5), ("MST", -7),
        ("MDT", -6), ("PST", -8), ("PDT", -7), ("Z", 0),
    ].map { (Array($0.0.utf8), $0.1) }

    private static func componentName(_ component: Component) -> String {
        switch component {
        case .year: "year"
        case .month: "month"
        case .day: "day"
        case .hour, .hour12, .hour24From1, .hour12From0: "hour"
        case .minute: "minute"
        case .second: "second"
        case .dayOfYear: "day of the year"
        }
    }

    /// Reads `bytes` with the compiled fields (spaces around the value aside).
    private static func read(_ fields: [Field], spellings: [String], from all: UnsafeBufferPointer<UInt8>)
        -> Result<DateReading, PatternMismatch>
    {
        var lower = 0
        var upper = all.count
        while lower < upper, all[lower] == 0x20 || all[lower] == 0x09 { lower += 1 }
        while upper > lower, all[upper - 1] == 0x20 || all[upper - 1] == 0x09 { upper -= 1 }
        let bytes = UnsafeBufferPointer(rebasing: all[lower..<upper])
        var index = 0
        var year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, offset = 0
        var fraction: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0)
        var hour12: Int?
        var hourFrom0Or1: (value: Int, component: Component)?
        var afternoon: Bool?
        var weekday: Int?
        var dayOfYear: Int?
        var hasMonthOrDay = false
        func text(_ range: Range<Int>) -> String {
            JSONWriter.string(.string(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)))
        }
        /// Why the value does not match the field at `position` of the pattern.
        func mismatch(_ position: Int) -> PatternMismatch {
            let rest = index < bytes.count ? "at \(text(index..<min(bytes.count, index + 12)))" : "at the end"
            return PatternMismatch(reason: "it does not match \"\(spellings[position])\" \(rest)")
        }
        func digitCount() -> Int {
            var count = 0
            while index + count < bytes.count, isDigit(bytes[index + count]) { count += 1 }
            return count
        }
        /// A number field: exactly `width` digits, or (0) one or two, or (-1) one to four. More
        /// digits than that are refused, unless another number field follows without a separator.
        func digits(_ width: Int, field position: Int, component: Component) -> Result<Int, PatternMismatch> {
            let available = digitCount()
            guard available > 0 else { return .failure(mismatch(position)) }
            let most = width > 0 ? width : width == 0 ? 2 : 4
            var abuts = false
            if position + 1 < fields.count {
                switch fields[position + 1] {
                case .number, .fraction: abuts = true
                default: break
                }
            }
            guard available >= (width > 0 ? width : 1), available <= most || abuts else {
                let wants = width == 0 ? "1 or 2" : width == -1 ? "1 to 4" : String(width)
                return .failure(
                    PatternMismatch(
                        reason:
                            "the \(componentName(component)) is \(text(index..<index + available)), \(available) digit\(available == 1 ? "" : "s"), but \"\(spellings[position])\" reads \(wants)"
                    ))
            }
            let count = min(available, most)
            var value = 0
            for place in index..<index + count { value = value * 10 + Int(bytes[place] &- 48) }
            index += count
            return .success(value)
        }
        func name(among names: [[UInt8]], abbreviated: Bool) -> Int? {
            for (number, name) in names.enumerated() {
                let length = abbreviated ? 3 : name.count
                guard index + length <= bytes.count else { continue }
                var matches = true
                for offset in 0..<length where bytes[index + offset] | 0x20 != name[offset] {
                    matches = false
                    break
                }
                // A full name must not run on into letters (`Mayday` is no `May`).
                if matches, !abbreviated || index + length == bytes.count || !isLetter(bytes[index + length]) {
                    index += length
                    return number
                }
            }
            return nil
        }
        func sign() -> Int? {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "+"): index += 1; return 1
            case UInt8(ascii: "-"): index += 1; return -1
            default: return nil
            }
        }
        func twoDigits() -> Int? {
            guard index + 2 <= bytes.count, isDigit(bytes[index]), isDigit(bytes[index + 1]) else { return nil }
            defer { index += 2 }
            return Int(bytes[index] &- 48) * 10 + Int(bytes[index + 1] &- 48)
        }
        func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        /// `+hh:mm` after `GMT` (or nothing): the offset in seconds.
        func gmtOffset() -> Int? {
            guard let sign = sign() else { return 0 }
            guard let hours = twoDigits(), take(UInt8(ascii: ":")), let minutes = twoDigits(), hours <= 23,
                minutes <= 59
            else { return nil }
            return sign * (hours * 3600 + minutes * 60)
        }
        for (position, field) in fields.enumerated() {
            switch field {
            case .number(let component, let width):
                let value: Int
                switch digits(width, field: position, component: component) {
                case .success(let read): value = read
                case .failure(let failure): return .failure(failure)
                }
                switch component {
                case .year: year = value
                case .month: month = value; hasMonthOrDay = true
                case .day: day = value; hasMonthOrDay = true
                case .hour: hour = value
                case .hour12: hour12 = value
                case .hour24From1, .hour12From0: hourFrom0Or1 = (value, component)
                case .minute: minute = value
                case .second: second = value
                case .dayOfYear: dayOfYear = value
                }
            case .fraction(let count):
                guard index + count <= bytes.count else { return .failure(mismatch(position)) }
                for offset in 0..<count where !isDigit(bytes[index + offset]) { return .failure(mismatch(position)) }
                fraction = UnsafeBufferPointer(rebasing: bytes[index..<index + count])
                index += count
            case .monthName(let abbreviated):
                guard let number = name(among: monthNames, abbreviated: abbreviated) else {
                    return .failure(mismatch(position))
                }
                month = number + 1
                hasMonthOrDay = true
            case .weekdayName(let abbreviated):
                guard let number = name(among: weekdayNames, abbreviated: abbreviated) else {
                    return .failure(mismatch(position))
                }
                weekday = number
            case .dayPeriod:
                guard index + 2 <= bytes.count, bytes[index + 1] | 0x20 == UInt8(ascii: "m") else {
                    return .failure(mismatch(position))
                }
                switch bytes[index] | 0x20 {
                case UInt8(ascii: "a"): afternoon = false
                case UInt8(ascii: "p"): afternoon = true
                default: return .failure(mismatch(position))
                }
                index += 2
            case .basicOffset:
                guard let sign = sign(), let hours = twoDigits(), let minutes = twoDigits(), hours <= 23, minutes <= 59
                else { return .failure(mismatch(position)) }
                offset = sign * (hours * 3600 + minutes * 60)
            case .extendedOffset(let allowsZ):
                if allowsZ, take(UInt8(ascii: "Z")) {
                    offset = 0
                    continue
                }
                guard let sign = sign(), let hours = twoDigits(), take(UInt8(ascii: ":")), let minutes = twoDigits(),
                    hours <= 23, minutes <= 59
                else { return .failure(mismatch(position)) }
                offset = sign * (hours * 3600 + minutes * 60)
            case .shortOffset(let allowsZ, let presence):
                if allowsZ, take(UInt8(ascii: "Z")) {
                    offset = 0
                    continue
                }
                guard let sign = sign(), let hours = twoDigits(), hours <= 23 else {
                    return .failure(mismatch(position))
                }
                var minutes = 0
                if presence == .required || (index < bytes.count && isDigit(bytes[index])) {
                    guard let read = twoDigits(), read <= 59 else { return .failure(mismatch(position)) }
                    minutes = read
                }
                offset = sign * (hours * 3600 + minutes * 60)
            case .zoneName:
                var matched: Int?
                for zone in zoneNames where index + zone.name.count <= bytes.count {
                    let slice = UnsafeBufferPointer(rebasing: bytes[index..<index + zone.name.count])
                    if slice.elementsEqual(zone.name, by: { $0 & 0xDF == $1 & 0xDF }),
                        index + zone.name.count == bytes.count || !isLetter(bytes[index + zone.name.count])
                    {
                        index += zone.name.count
                        matched = zone.hours * 3600
                        break
                    }
                }
                guard var zoneOffset = matched else { return .failure(mismatch(position)) }
                if zoneOffset == 0, let extra = gmtOffset() {
                    zoneOffset = extra
                } else if zoneOffset == 0 {
                    return .failure(mismatch(position))
                }
                offset = zoneOffset
            case .literal(let literal):
                guard index + literal.count <= bytes.count else { return .failure(mismatch(position)) }
                for (place, byte) in literal.enumerated() where bytes[index + place] != byte {
                    return .failure(mismatch(position))
                }
                index += literal.count
            }
        }
        guard index == bytes.count else {
            return .failure(PatternMismatch(reason: "\(text(index..<bytes.count)) follows the date"))
        }
        if let hour12 {
            guard let afternoon else {
                return .failure(PatternMismatch(reason: "the hour of \"h\" needs \"a\" (AM or PM)"))
            }
            guard (1...12).contains(hour12) else {
                return .failure(PatternMismatch(reason: "hour \(hour12) does not exist on a 12-hour clock"))
            }
            hour = hour12 % 12 + (afternoon ? 12 : 0)
        } else if let (value, component) = hourFrom0Or1 {
            if component == .hour24From1 {
                guard (1...24).contains(value) else {
                    return .failure(PatternMismatch(reason: "hour \(value) does not exist for \"k\" (1 to 24)"))
                }
                hour = value % 24
            } else {
                guard (0...11).contains(value), let afternoon else {
                    return .failure(
                        PatternMismatch(reason: "hour \(value) does not exist for \"K\" (0 to 11, with AM or PM)"))
                }
                hour = value + (afternoon ? 12 : 0)
            }
        } else if afternoon != nil {
            return .failure(PatternMismatch(reason: "AM or PM goes with a 12-hour clock (\"h\" or \"K\")"))
        }
        guard year >= 1 else { return .failure(PatternMismatch(reason: "there is no year 0")) }
        if let dayOfYear {
            let length = DateParser.daysIn(month: 2, year: year) == 29 ? 366 : 365
            guard (1...length).contains(dayOfYear) else {
                return .failure(PatternMismatch(reason: "day \(dayOfYear) of the year does not exist in \(year)"))
            }
            let first = DateParser.daysSinceEpoch(year: year, month: 1, day: 1)
            let (_, dayMonth, dayDay) = JSONWriter.civil(fromDays: first + dayOfYear - 1)
            if hasMonthOrDay {
                guard dayMonth == month, dayDay == day else {
                    return .failure(
                        PatternMismatch(
                            reason:
                                "day \(dayOfYear) of \(year) is \(shortDate(year, dayMonth, dayDay)), not \(shortDate(year, month, day))"
                        ))
                }
            } else {
                month = dayMonth
                day = dayDay
            }
        }
        guard (1...12).contains(month) else {
            return .failure(PatternMismatch(reason: "month \(month) does not exist"))
        }
        guard day >= 1, day <= DateParser.daysIn(month: month, year: year) else {
            return .failure(PatternMismatch(reason: "day \(day) does not exist in \(monthTitle(month)) \(year)"))
        }
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else {
            return .failure(PatternMismatch(reason: "\(hour):\(minute):\(second) is no time of day"))
        }
        let days = DateParser.daysSinceEpoch(year: year, month: month, day: day)
        if let weekday {
            // 1970-01-01 was a Thursday (3, counting from Monday).
            let actual = ((days + 3) % 7 + 7) % 7
            guard actual == weekday else {
                return .failure(
                    PatternMismatch(
                        reason:
                            "\(shortDate(year, month, day)) is a \(weekdayTitle(actual)), not a \(weekdayTitle(weekday))"
                    ))
            }
        }
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return .success(DateReading(seconds: seconds, fractionDigits: fraction))
    }

    private static func monthTitle(_ month: Int) -> String {
        let name = monthNames[month - 1]
        return String(decoding: [name[0] & 0xDF] + name[1...], as: UTF8.self)
    }

    private static func weekdayTitle(_ weekday: Int) -> String {
        let name = weekdayNames[weekday]
        return String(decoding: [name[0] & 0xDF] + name[1...], as: UTF8.self)
    }

    /// `Aug 31 2014`: how a message names a day.
    private static func shortDate(_ year: Int, _ month: Int, _ day: Int) -> String {
        "\(monthTitle(month).prefix(3)) \(day) \(year)"
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}
