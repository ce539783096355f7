package import Foundation

/// Writes JSON text: `JSONValue`s as they are (converted values: `JSONWriter+Value.swift` in MappingsModel).
///
/// Output rules: a model object is a JSON object with every declared property in
/// declaration order (`null` where unset); dates are ISO 8601 in UTC
/// (`2012-08-29T14:40:05Z`, fraction only when non-zero); URLs and UUIDs are strings;
/// decimals are JSON numbers with their exact digits. Output is compact, on one line.
package enum JSONWriter {
    package static func string(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the JSON text of `value` to `out`, as UTF-8: what a stream writes, with no
    /// intermediate string.
    package static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: append("null", to: &out)
        case .bool(let bool): append(bool ? "true" : "false", to: &out)
        case .integer(let integer): writeInteger(integer, into: &out)
        case .double(let double): out.append(contentsOf: number(double).utf8)
        case .number(let number): out.append(contentsOf: number.literal.utf8)
        case .string(let string): writeString(string, into: &out)
        case .array(let elements): writeArray(elements, into: &out, write)
        case .object(let object): writeObject(object.members, into: &out, write)
        }
    }

    package static func append(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func writeArray<Element>(
        _ elements: [Element], into out: inout [UInt8], _ writeElement: (Element, inout [UInt8]) -> Void
    ) {
        out.append(UInt8(ascii: "["))
        for (offset, element) in elements.enumerated() {
            if offset > 0 { out.append(UInt8(ascii: ",")) }
            writeElement(element, &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    private static func writeObject<Member>(
        _ members: [(key: String, value: Member)], into out: inout [UInt8],
        _ writeMember: (Member, inout [UInt8]) -> Void
    ) {
        out.append(UInt8(ascii: "{"))
        for (offset, member) in members.enumerated() {
            if offset > 0 { out.append(UInt8(ascii: ",")) }
            writeString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            writeMember(member.value, &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Decimal digits, without an intermediate string.
    package static func writeInteger(_ integer: Int64, into out: inout [UInt8]) {
        if integer < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = integer.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            repeat {
                digits[19 - count] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 48
                magnitude /= 10
                count += 1
            } while magnitude > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)...]))
        }
    }

    /// A double as JSON: integral values without a fraction, others in their shortest exact form;
    /// NaN and infinities (which JSON cannot hold) as `null`.
    package static func number(_ double: Double) -> String {
        guard double.isFinite else { return "null" }
        return JSONNumber.text(of: double)
    }

    /// `2012-08-29T14:40:05Z`, with a fraction (milliseconds or finer) only when it is not zero.
    package static func iso8601(_ date: Date) -> String {
        var out: [UInt8] = []
        writeISO8601(date, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The whole seconds since 1970 (rounded down) and the microseconds an ISO 8601 text of
    /// `date` writes. Counted from `Date`'s own reference (2001), so that only the fraction is
    /// rounded, once: a reading of whole seconds and microseconds gives them back unchanged
    /// wherever a `Date` holds that many digits.
    package static func instantParts(_ date: Date) -> (seconds: Int, micros: Int) {
        let interval = date.timeIntervalSinceReferenceDate
        let whole = interval.rounded(.down)
        var seconds = Int(whole) + 978_307_200
        var micros = Int(((interval - whole) * 1_000_000).rounded())
        if micros == 1_000_000 {
            seconds += 1
            micros = 0
        }
        return (seconds, micros)
    }

    package static func writeISO8601(_ date: Date, into out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: iso8601Capacity) { buffer in
            let count = writeISO8601(date, to: buffer)
            out.append(contentsOf: buffer[..<count])
        }
    }

    /// The most bytes `writeISO8601(_:to:)` writes.
    package static let iso8601Capacity = 48

    /// Writes the ISO 8601 text of `date` (without quotes) at the start of `buffer`, which holds
    /// at least `iso8601Capacity` bytes, and returns how many it wrote: no allocation.
    package static func writeISO8601(_ date: Date, to buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let (seconds, micros) = instantParts(date)
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        var count = 0
        func put(_ byte: UInt8) {
            buffer[count] = byte
            count += 1
        }
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                put(UInt8(truncatingIfNeeded: value / divisor % 10) &+ 48)
                divisor /= 10
            }
        }
        if year < 0 { put(UInt8(ascii: "-")) }
        // Four digits at least (a year before 1 in as many as it has); a year past 9999 in all
        // of its (a Date reaches ±292 million).
        var width = year < 0 ? 1 : 4
        var limit = year < 0 ? 10 : 10_000
        while year.magnitude >= limit, width < 18 {
            width += 1
            limit *= 10
        }
        digits(Int(year.magnitude), width)
        put(UInt8(ascii: "-"))
        digits(month, 2)
        put(UInt8(ascii: "-"))
        digits(day, 2)
        put(UInt8(ascii: "T"))
        digits(rest / 3600, 2)
        put(UInt8(ascii: ":"))
        digits(rest % 3600 / 60, 2)
        put(UInt8(ascii: ":"))
        digits(rest % 60, 2)
        if micros > 0 {
            put(UInt8(ascii: "."))
            var fraction = micros
            var fractionWidth = 6
            while fraction % 10 == 0, fractionWidth > 3 {
                fraction /= 10
                fractionWidth -= 1
            }
            digits(fraction, fractionWidth)
        }
        put(UInt8(ascii: "Z"))
        return count
    }

    /// The calendar day `days` after 1970-01-01 (proleptic Gregorian).
    package static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 48 + nibble : 87 + nibble
    }

    /// Whether the writer escapes `byte` in a string: a control character, `"` or `\\`; every
    /// other character is written as its UTF-8.
    @inlinable @inline(__always)
    package static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Writes the escape of a byte that `needsEscape` (`\\n`, `\\"`, `\\u001b`…) at `out`, which
    /// has room for six bytes; returns how many it wrote. The one spelling of escapes, for the
    /// writer and the plans.
    package static func writeEscape(of byte: UInt8, to out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = UInt8(ascii: "\\")
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out[1] = byte
        case 0x0A: out[1] = UInt8(ascii: "n")
        case 0x0D: out[1] = UInt8(ascii: "r")
        case 0x09: out[1] = UInt8(ascii: "t")
        default:
            out[1] = UInt8(ascii: "u")
            out[2] = 48
            out[3] = 48
            out[4] = hexDigit(byte >> 4)
            out[5] = hexDigit(byte & 0xF)
            return 6
        }
        return 2
    }

    /// `string` as a JSON string literal, for messages and paths.
    package static func writeString(_ string: String, into out: inout String) {
        var bytes: [UInt8] = []
        writeString(string, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `string` as a JSON string literal: runs that need no escape are copied whole.
    package static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard needsEscape(byte) else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { escape in
                    out.append(contentsOf: escape[..<writeEscape(of: byte, to: escape.baseAddress!)])
                }
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
