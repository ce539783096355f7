/// JSON text that is safe on a terminal and in a log: what messages quote of a payload, what
/// `explain` shows, what a rejects file holds.
///
/// A payload can hold anything: an escape sequence that recolors the terminal (`\u001b[31m`), a
/// carriage return that hides what came before it on the line, a line break that splits one
/// issue into two, a right-to-left override (`U+202E`) that reverses what follows, a zero-width
/// space that makes two different keys print alike. Written here, every control character
/// (`Cc`), format character (`Cf`: zero-width and bidirectional marks, the byte-order mark…)
/// and line or paragraph separator (`Zl`, `Zp`) is a `\u` escape, as a JSON string may write
/// any character: the text still reads back (as JSON) to the very same value.
extension JSONWriter {
    /// `value`'s JSON text with every invisible character escaped (see the type's comment).
    package static func safeText(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        writeSafe(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A payload value quoted in a message: its safe JSON text, cut after `limit` characters of
    /// the value (a string's characters, not its escapes) with `...` inside the quotes.
    package static func quotedForMessage(_ string: String, limit: Int = 40) -> String {
        let cut = string.count > limit ? String(string.prefix(limit - 3)) + "..." : string
        var out: [UInt8] = []
        writeSafeString(cut, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A payload value as a message quotes it: a string quoted and cut (`quotedForMessage`),
    /// anything else its safe JSON text, cut after `limit` characters with `...`.
    package static func messageText(_ value: JSONValue, limit: Int = 40) -> String {
        if case .string(let string) = value { return quotedForMessage(string, limit: limit) }
        let text = safeText(value)
        guard text.count > limit else { return text }
        var cut = String(text.prefix(limit - 3))
        // Never end inside an escape (`\u00`): drop a backslash run's unfinished tail.
        if let backslash = cut.lastIndex(of: "\\"), cut.distance(from: backslash, to: cut.endIndex) < 6 {
            cut = String(cut[..<backslash])
        }
        return cut + "..."
    }

    /// Appends `value`'s JSON text with invisible characters escaped.
    package static func writeSafe(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .string(let string): writeSafeString(string, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                writeSafe(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                writeSafeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                writeSafe(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        default: write(value, into: &out)
        }
    }

    /// Appends `string` as a JSON string literal with invisible characters escaped.
    package static func writeSafeString(_ string: String, into out: inout [UInt8]) {
        // Most strings have nothing to escape but what the plain writer escapes.
        guard string.unicodeScalars.contains(where: isInvisible) else {
            writeString(string, into: &out)
            return
        }
        out.append(UInt8(ascii: "\""))
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case "\\": out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            default:
                if isInvisible(scalar) {
                    writeEscape(scalar, into: &out)
                } else {
                    out.append(contentsOf: String(scalar).utf8)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `text` with its invisible characters escaped as a JSON string would write them (`\n`,
    /// `\u001b`), and nothing else changed: a message from elsewhere (a script's `error(...)`)
    /// made fit to print on one line.
    package static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isInvisible) else { return text }
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            if isInvisible(scalar) {
                writeEscape(scalar, into: &out)
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `\n`, `\r`, `\t`, or `\uXXXX` (a surrogate pair past the Basic Multilingual Plane).
    private static func writeEscape(_ scalar: Unicode.Scalar, into out: inout [UInt8]) {
        switch scalar {
        case "\n": out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case "\r": out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case "\t": out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        default:
            for unit in String(scalar).utf16 {
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
                for shift in [12, 8, 4, 0] { out.append(hexDigit(UInt8((unit >> UInt16(shift)) & 0xF))) }
            }
        }
    }

    /// Whether a scalar prints as nothing, or as something else than itself: control and
    /// format characters and the line and paragraph separators.
    package static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x20 || scalar.value == 0x7F { return true }
        if scalar.value < 0x80 { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}
