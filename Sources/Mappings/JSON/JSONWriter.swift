public import Foundation

/// Writes JSON text: `JSONValue`s as they are, and converted `Value`s by the output rules.
///
/// Output rules: a model object is a JSON object with every declared property in
/// declaration order (`null` where unset); dates are ISO 8601 in UTC
/// (`2012-08-29T14:40:05Z`, fraction only when non-zero); URLs and UUIDs are strings;
/// decimals are JSON numbers with their exact digits. Output is compact, on one line.
public enum JSONWriter {
    public static func string(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out)
        return out
    }

    public static func string(_ value: Value) -> String {
        var out = ""
        write(value, into: &out)
        return out
    }

    static func write(_ value: JSONValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let bool): out += bool ? "true" : "false"
        case .integer(let integer): out += String(integer)
        case .double(let double): out += number(double)
        case .string(let string): writeString(string, into: &out)
        case .array(let elements): writeArray(elements, into: &out, write)
        case .object(let object): writeObject(object.members, into: &out, write)
        }
    }

    static func write(_ value: Value, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .string(let string): writeString(string, into: &out)
        case .int(let int): out += String(int)
        case .double(let double): out += number(double)
        case .bool(let bool): out += bool ? "true" : "false"
        case .decimal(let decimal): out += decimal.description
        case .url(let url): writeString(url.absoluteString, into: &out)
        case .uuid(let uuid): writeString(uuid.uuidString, into: &out)
        case .date(let date): writeString(iso8601(date), into: &out)
        case .json(let json): write(json, into: &out)
        case .object(let object):
            writeObject(zip(object.model.properties, object.slots).map { ($0.name, $1) }, into: &out, write)
        case .array(let elements): writeArray(elements, into: &out, write)
        case .dictionary(let dictionary): writeObject(dictionary.entries, into: &out, write)
        }
    }

    private static func writeArray<Element>(
        _ elements: [Element], into out: inout String, _ writeElement: (Element, inout String) -> Void
    ) {
        out += "["
        for (offset, element) in elements.enumerated() {
            if offset > 0 { out += "," }
            writeElement(element, &out)
        }
        out += "]"
    }

    private static func writeObject<Member>(
        _ members: [(key: String, value: Member)], into out: inout String, _ writeMember: (Member, inout String) -> Void
    ) {
        out += "{"
        for (offset, member) in members.enumerated() {
            if offset > 0 { out += "," }
            writeString(member.key, into: &out)
            out += ":"
            writeMember(member.value, &out)
        }
        out += "}"
    }

    /// A double as JSON: integral values without a fraction, others in their shortest exact form;
    /// NaN and infinities (which JSON cannot hold) as `null`.
    static func number(_ double: Double) -> String {
        guard double.isFinite else { return "null" }
        return Converter.format(double)
    }

    /// `2012-08-29T14:40:05Z`, with a fraction (milliseconds or finer) only when it is not zero.
    public static func iso8601(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = Int(interval.rounded(.down))
        var micros = Int(((interval - Double(seconds)) * 1_000_000).rounded())
        if micros == 1_000_000 {
            seconds += 1
            micros = 0
        }
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text =
            "\(year < 1000 ? String(repeating: "0", count: 4 - String(max(year, 0)).count) : "")\(year)-\(two(month))-\(two(day))"
        text += "T\(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))"
        if micros > 0 {
            var digits = String(micros)
            digits = String(repeating: "0", count: 6 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            if digits.count < 3 { digits += String(repeating: "0", count: 3 - digits.count) }
            text += "." + digits
        }
        return text + "Z"
    }

    /// The calendar day `days` after 1970-01-01 (proleptic Gregorian).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
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

    static func writeString(_ string: String, into out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
