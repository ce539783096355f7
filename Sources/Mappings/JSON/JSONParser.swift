/// Reads payload JSON (RFC 8259, strict) into a `JSONValue`.
///
/// This is the one seam every payload goes through. Integers that fit in 64 bits stay exact
/// `integer`s; other numbers are `double`s. A duplicate key keeps its last value, as most
/// JSON readers do. Errors name the 1-based line and column.
public enum JSONParser {
    /// A payload that is not valid JSON.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var line: Int
        public var column: Int

        public var description: String { "\(line):\(column): \(message)" }
    }

    /// How deeply a payload may nest.
    public static let maximumDepth = 512

    public static func parse(_ text: String) throws(Failure) -> JSONValue {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var reader = Reader(bytes: bytes)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.failure("unexpected text after the JSON value") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard index < bytes.count else { throw failure("unexpected end of input: a value was expected") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw failure("unexpected character \(shown(bytes[index])): a value was expected")
            }
        }

        mutating func object(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else {
                throw failure("nesting deeper than \(JSONParser.maximumDepth) levels")
            }
            index += 1
            var members: [(key: String, value: JSONValue)] = []
            var positions: [String: Int] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(JSONObject(members))
            }
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw failure(
                        index < bytes.count ? "expected a key in double quotes" : "unexpected end of input in an object"
                    )
                }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw failure("expected ':' after a key")
                }
                index += 1
                skipWhitespace()
                let item = try value(depth: depth)
                if let existing = positions[key] {
                    members[existing].value = item
                } else {
                    positions[key] = members.count
                    members.append((key, item))
                }
                skipWhitespace()
                guard index < bytes.count else { throw failure("unexpected end of input in an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    continue
                }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(JSONObject(members))
                }
                throw failure("expected ',' or '}' in an object")
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else {
                throw failure("nesting deeper than \(JSONParser.maximumDepth) levels")
            }
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth))
                skipWhitespace()
                guard index < bytes.count else { throw failure("unexpected end of input in an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    continue
                }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                }
                throw failure("expected ',' or ']' in an array")
            }
        }

        mutating func string() throws(Failure) -> String {
            index += 1
            let start = index
            // Fast path: no escapes.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = try utf8(start, index)
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                index += 1
            }
            var scalars = String.UnicodeScalarView()
            scalars.append(contentsOf: try utf8(start, index).unicodeScalars)
            var runStart = index
            while true {
                guard index < bytes.count else { throw failure("unexpected end of input in a string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    scalars.append(contentsOf: try utf8(runStart, index).unicodeScalars)
                    index += 1
                    return String(scalars)
                }
                if byte < 0x20 { throw failure("a control character must be escaped in a string") }
                if byte == UInt8(ascii: "\\") {
                    scalars.append(contentsOf: try utf8(runStart, index).unicodeScalars)
                    index += 1
                    guard index < bytes.count else { throw failure("unexpected end of input in an escape") }
                    let escape = bytes[index]
                    index += 1
                    if let character = JSONEscape.character(after: escape) {
                        scalars.append(character)
                    } else if escape == UInt8(ascii: "u") {
                        scalars.append(try unicodeEscape())
                    } else {
                        index -= 2
                        throw failure("invalid escape sequence")
                    }
                    runStart = index
                    continue
                }
                index += 1
            }
        }

        mutating func unicodeEscape() throws(Failure) -> Unicode.Scalar {
            let high = try hex4()
            if (0xD800...0xDBFF).contains(high) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw failure("a high surrogate must be followed by a low surrogate")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw failure("a high surrogate must be followed by a low surrogate")
                }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(high) else { throw failure("a lone low surrogate is not a character") }
            return scalar
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard index < bytes.count else { throw failure("\\u needs four hexadecimal digits") }
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte) - 48
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte) - 87
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte) - 55
                default: throw failure("\\u needs four hexadecimal digits")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        mutating func number() throws(Failure) -> JSONValue {
            let start = index
            var negative = false
            if bytes[index] == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits") }
            var magnitude: UInt64 = 0
            var overflow = false
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, isDigit(bytes[index]) {
                    throw failure("numbers do not start with a leading zero")
                }
            } else {
                while index < bytes.count, isDigit(bytes[index]) {
                    let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (plus, o2) = times.addingReportingOverflow(UInt64(bytes[index] - 48))
                    overflow = overflow || o1 || o2
                    magnitude = plus
                    index += 1
                }
            }
            var integral = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                integral = false
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else {
                    throw failure("a number needs digits after '.'")
                }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                integral = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard index < bytes.count, isDigit(bytes[index]) else {
                    throw failure("a number needs digits in its exponent")
                }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if integral, !overflow {
                if negative, magnitude <= UInt64(Int64.max) + 1 {
                    return .integer(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude))
                }
                if !negative, magnitude <= UInt64(Int64.max) { return .integer(Int64(magnitude)) }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let double = Double(text), double.isFinite else {
                throw failure("the number \(text) is out of range")
            }
            return .double(double)
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw failure("unexpected end of input: a value was expected") }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
                throw failure("unexpected character \(shown(bytes[index])): a value was expected")
            }
            index += count
            return value
        }

        func utf8(_ start: Int, _ end: Int) throws(Failure) -> String {
            guard let text = String(validating: bytes[start..<end], as: UTF8.self) else {
                throw failure("a string is not valid UTF-8", at: start)
            }
            return text
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

        func shown(_ byte: UInt8) -> String {
            byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16)
        }

        func failure(_ message: String, at offset: Int? = nil) -> Failure {
            let position = min(offset ?? index, bytes.count)
            var line = 1
            var lineStart = 0
            for i in 0..<position where bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            let column = bytes[lineStart..<position].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
            return Failure(message: message, line: line, column: column)
        }
    }
}
