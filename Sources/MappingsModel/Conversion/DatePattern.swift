import Foundation
import MappingsJSON

/// A `@dateFormat` pattern, compiled once when the catalog loads.
///
/// ICU's `DateFormatter` costs tens of microseconds per value; most patterns in payloads
/// (`EEE MMM dd HH:mm:ss Z yyyy`, `yyyy-MM-dd'T'HH:mm:ss.SSSZ`, `dd/MM/yyyy`) are fixed-width
/// fields and English names, read here straight from the UTF-8 bytes. A value the compiled
/// reader does not take (a pattern letter it does not know, a field out of range, surrounding
/// spaces) goes to `DateFormatter` with the same pattern, so the result is always the one
/// `DateFormatter` (POSIX locale, UTC unless the pattern has a zone) would give.
package struct DatePattern: Sendable, Hashable {
    /// The pattern as written.
    let text: String
    /// The compiled fields; `nil` when the pattern uses something only ICU reads.
    private let fields: [Field]?

    enum Component: Sendable, Hashable {
        case year, month, day, hour, hour12, minute, second
    }

    enum Field: Sendable, Hashable {
        /// Exactly `width` digits, or (width 0) one or two.
        case number(Component, width: Int)
        /// Milliseconds written with `digits` digits (1 to 3).
        case fraction(digits: Int)
        case monthName(abbreviated: Bool)
        case weekdayName(abbreviated: Bool)
        case dayPeriod
        /// `+0100` (`Z`, `ZZ`, `ZZZ`).
        case basicOffset
        /// `+01:00`, or `Z` when `allowsZ` (`XXX`, `ZZZZZ`; `xxx` without `Z`).
        case extendedOffset(allowsZ: Bool)
        case literal([UInt8])
    }

    init(_ text: String) {
        self.text = text
        self.fields = Self.compile(text)
    }

    /// Whether values are read without ICU (when they are well-formed).
    var isCompiled: Bool { fields != nil }

    func parse(_ string: String) -> Date? {
        if let fields {
            var string = string
            let date = string.withUTF8 { Self.read(fields, from: $0) }
            if let date { return date }
        }
        return DateParser.parse(string, format: text)
    }

    // MARK: Compiling

    private static func compile(_ pattern: String) -> [Field]? {
        let bytes = Array(pattern.utf8)
        var fields: [Field] = []
        var index = 0
        func appendLiteral(_ literal: [UInt8]) {
            if case .literal(let previous)? = fields.last {
                fields[fields.count - 1] = .literal(previous + literal)
            } else {
                fields.append(.literal(literal))
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
        }
        // A one-or-two-digit field right before another number is ambiguous: ICU decides.
        for (offset, field) in fields.enumerated() where offset + 1 < fields.count {
            if case .number(_, width: 0) = field, case .number = fields[offset + 1] { return nil }
            if case .number(_, width: 0) = field, case .fraction = fields[offset + 1] { return nil }
        }
        return fields
    }

    private static func field(letter: UInt8, count: Int) -> Field? {
        switch (Character(Unicode.Scalar(letter)), count) {
        case ("y", 4): .number(.year, width: 4)
        case ("M", 1): .number(.month, width: 0)
        case ("M", 2): .number(.month, width: 2)
        case ("M", 3): .monthName(abbreviated: true)
        case ("M", 4): .monthName(abbreviated: false)
        case ("d", 1): .number(.day, width: 0)
        case ("d", 2): .number(.day, width: 2)
        case ("H", 1): .number(.hour, width: 0)
        case ("H", 2): .number(.hour, width: 2)
        case ("h", 1): .number(.hour12, width: 0)
        case ("h", 2): .number(.hour12, width: 2)
        case ("m", 1): .number(.minute, width: 0)
        case ("m", 2): .number(.minute, width: 2)
        case ("s", 1): .number(.second, width: 0)
        case ("s", 2): .number(.second, width: 2)
        case ("S", 1...3): .fraction(digits: count)
        case ("E", 1...3): .weekdayName(abbreviated: true)
        case ("E", 4): .weekdayName(abbreviated: false)
        case ("a", 1): .dayPeriod
        case ("Z", 1...3): .basicOffset
        case ("Z", 5), ("X", 3): .extendedOffset(allowsZ: true)
        case ("x", 3): .extendedOffset(allowsZ: false)
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

    /// Reads `bytes` with the compiled fields; `nil` when they do not match exactly.
    private static func read(_ fields: [Field], from bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        var year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, millis = 0, offset = 0
        var hour12: Int?
        var afternoon: Bool?
        func digits(_ width: Int) -> Int? {
            let count: Int
            if width == 0 {
                guard index < bytes.count, isDigit(bytes[index]) else { return nil }
                count = index + 1 < bytes.count && isDigit(bytes[index + 1]) ? 2 : 1
            } else {
                count = width
            }
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for position in index..<index + count {
                guard isDigit(bytes[position]) else { return nil }
                value = value * 10 + Int(bytes[position] &- 48)
            }
            index += count
            return value
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
                if matches {
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
        for field in fields {
            switch field {
            case .number(let component, let width):
                guard let value = digits(width) else { return nil }
                switch component {
                case .year: year = value
                case .month: month = value
                case .day: day = value
                case .hour: hour = value
                case .hour12: hour12 = value
                case .minute: minute = value
                case .second: second = value
                }
            case .fraction(let count):
                guard let value = digits(count) else { return nil }
                millis = count == 1 ? value * 100 : count == 2 ? value * 10 : value
            case .monthName(let abbreviated):
                guard let number = name(among: monthNames, abbreviated: abbreviated) else { return nil }
                month = number + 1
            case .weekdayName(let abbreviated):
                // Read, not checked against the date: ICU ignores the weekday when the date is complete.
                guard name(among: weekdayNames, abbreviated: abbreviated) != nil else { return nil }
            case .dayPeriod:
                guard index + 2 <= bytes.count, bytes[index + 1] | 0x20 == UInt8(ascii: "m") else { return nil }
                switch bytes[index] | 0x20 {
                case UInt8(ascii: "a"): afternoon = false
                case UInt8(ascii: "p"): afternoon = true
                default: return nil
                }
                index += 2
            case .basicOffset:
                guard let sign = sign(), let hours = digits(2), let minutes = digits(2), hours <= 23, minutes <= 59
                else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            case .extendedOffset(let allowsZ):
                if allowsZ, index < bytes.count, bytes[index] == UInt8(ascii: "Z") {
                    index += 1
                    offset = 0
                    continue
                }
                guard let sign = sign(), let hours = digits(2), index < bytes.count, bytes[index] == UInt8(ascii: ":")
                else { return nil }
                index += 1
                guard let minutes = digits(2), hours <= 23, minutes <= 59 else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            case .literal(let literal):
                guard index + literal.count <= bytes.count else { return nil }
                for (position, byte) in literal.enumerated() where bytes[index + position] != byte { return nil }
                index += literal.count
            }
        }
        guard index == bytes.count else { return nil }
        if let hour12 {
            guard let afternoon, (1...12).contains(hour12) else { return nil }
            hour = hour12 % 12 + (afternoon ? 12 : 0)
        } else if afternoon != nil {
            return nil
        }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= DateParser.daysIn(month: month, year: year),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        let days = DateParser.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        // In milliseconds first, as ICU counts, so that the double is the same to the last bit.
        return Date(timeIntervalSince1970: Double(seconds * 1000 + millis) / 1000)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}
