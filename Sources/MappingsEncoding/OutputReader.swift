import Foundation
import MappingsJSON

/// Why a record's output cannot be encoded (it does not fit the schema, or the reader's form),
/// and where: what every encoder of this module, and the SQL rows', throws.
package struct EncodingFailure: Error, Sendable {
    /// What is wrong, and where in the output's text.
    package let problem: String
    /// The fields and indexes from the record down to the value, outermost last.
    var steps: [String] = []

    /// `$.user.joined: "x" is not an ISO 8601 instant (byte 93)`.
    package var message: String {
        "$" + steps.reversed().joined() + ": " + problem
    }

    package func within(_ step: String) -> EncodingFailure {
        var failure = self
        failure.steps.append(step)
        return failure
    }
}

/// A cursor over JSON text: just what the encoders of a record's output need (Spark's rows,
/// the Python values, Arrow columns, SQL rows). The text is a record's output, which
/// `JSONWriter` wrote, but nothing here assumes it beyond its being JSON.
package struct OutputReader {
    package let bytes: UnsafeBufferPointer<UInt8>
    package var position = 0

    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    @inline(__always) package var atEnd: Bool { position >= bytes.count }
    @inline(__always) package var peek: UInt8 { position < bytes.count ? bytes[position] : 0 }
    @inline(__always) package mutating func advance() { position += 1 }

    @inline(__always) package mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    @inline(never) package func failure(_ what: String) -> EncodingFailure {
        EncodingFailure(problem: "\(what) (byte \(position + 1) of the output)")
    }

    @inline(__always) package mutating func expect(_ byte: UInt8) throws(EncodingFailure) {
        guard peek == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
        position += 1
    }

    @inline(__always) package mutating func takeNull() -> Bool {
        guard position + 4 <= bytes.count, bytes[position] == UInt8(ascii: "n"),
            bytes[position + 1] == UInt8(ascii: "u"),
            bytes[position + 2] == UInt8(ascii: "l"), bytes[position + 3] == UInt8(ascii: "l")
        else { return false }
        position += 4
        return true
    }

    /// Takes the key here when it is `name` written without escapes (as a record's output
    /// writes its keys); leaves the cursor where it was otherwise.
    @inline(__always) package mutating func takeKey(_ name: UnsafeBufferPointer<UInt8>) throws(EncodingFailure)
        -> Bool
    {
        guard peek == UInt8(ascii: "\"") else { throw failure("expected a key") }
        let end = position + 1 + name.count
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return false }
        guard name.isEmpty || memcmp(bytes.baseAddress! + position + 1, name.baseAddress!, name.count) == 0 else {
            return false
        }
        position = end + 1
        return true
    }

    package mutating func boolean() throws(EncodingFailure) -> Bool {
        if bytes[position...].starts(with: "true".utf8) {
            position += 4
            return true
        }
        if bytes[position...].starts(with: "false".utf8) {
            position += 5
            return false
        }
        throw failure("expected a boolean")
    }

    /// The number's text, from here.
    @inline(__always) package mutating func numberText() throws(EncodingFailure) -> Range<Int> {
        let start = position
        scan: while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                UInt8(ascii: "e"), UInt8(ascii: "E"):
                position += 1
            default:
                break scan
            }
        }
        guard position > start else { throw failure("expected a number") }
        return start..<position
    }

    @inline(__always) package mutating func integer() throws(EncodingFailure) -> Int64 {
        let start = position
        let range = try numberText()
        var index = range.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var magnitude: UInt64 = 0
        var digits = 0
        while index < range.upperBound {
            let byte = bytes[index]
            guard byte >= 48, byte <= 57 else { break }
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(byte - 48))
            guard !overflow, !carry else { break }
            magnitude = sum
            digits += 1
            index += 1
        }
        let limit = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        guard index == range.upperBound, digits > 0, magnitude <= limit else {
            position = start
            throw failure(
                "expected an integer of 64 bits, found \(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))"
            )
        }
        return negative ? Int64(bitPattern: 0 &- magnitude) : Int64(magnitude)
    }

    package mutating func double() throws(EncodingFailure) -> Double {
        let range = try numberText()
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        guard let value = Double(text) else { throw failure("expected a number") }
        return value
    }

    /// `body` of a string's value (escapes decoded), without its quotes: in place when it has
    /// no escape (a date, a dictionary's key, as a record's output writes them).
    package mutating func withString<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) throws(EncodingFailure)
        -> Result
    {
        let start = position
        try expect(UInt8(ascii: "\""))
        let from = position
        skipPlainText()
        if position < bytes.count, bytes[position] == UInt8(ascii: "\"") {
            position += 1
            return body(UnsafeBufferPointer(rebasing: bytes[from..<(position - 1)]))
        }
        position = start
        var decoded: [UInt8] = []
        try appendString(into: &decoded)
        return decoded.withUnsafeBufferPointer(body)
    }

    /// Moves to the next quote or backslash (or the end), eight bytes a turn: a byte equal to
    /// either makes a zero byte in `word ^ that byte` everywhere, which `(x - 1) & ~x & 0x80…`
    /// flags; a false flag can only stand after a true one, so the lowest flag is the first.
    @inline(__always) mutating func skipPlainText() {
        let base = bytes.baseAddress!
        let ones: UInt64 = 0x0101_0101_0101_0101
        while position + 8 <= bytes.count {
            // Byte n of the text at bits 8n to 8n + 7, whatever the machine's byte order.
            let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let found = ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes) & (ones &* 0x80)
            if found != 0 {
                position += found.trailingZeroBitCount / 8
                return
            }
            position += 8
        }
        while position < bytes.count, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") {
            position += 1
        }
    }

    /// Appends a string's value (escapes decoded) to `out`, as UTF-8.
    package mutating func appendString(into out: inout [UInt8]) throws(EncodingFailure) {
        try expect(UInt8(ascii: "\""))
        while position < bytes.count {
            // The run up to the next quote or backslash, in one piece.
            let from = position
            skipPlainText()
            if position > from { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<position])) }
            guard position < bytes.count else { break }
            if bytes[position] == UInt8(ascii: "\"") {
                position += 1
                return
            }
            position += 1
            guard position < bytes.count else { break }
            let escaped = bytes[position]
            position += 1
            switch escaped {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                guard var scalar = hex4() else { throw failure("a bad \\u escape") }
                if (0xD800..<0xDC00).contains(scalar), bytes[position...].starts(with: "\\u".utf8) {
                    position += 2
                    guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw failure("a lone surrogate") }
                out.append(contentsOf: String(Character(unicode)).utf8)
            default: out.append(escaped)
            }
        }
        throw failure("an unterminated string")
    }

    private mutating func hex4() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[position..<(position + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - 48
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - 87
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - 55
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        position += 4
        return value
    }

    /// Passes over one value of any kind.
    package mutating func skipValue() throws(EncodingFailure) {
        var depth = 0
        repeat {
            skipSpace()
            guard position < bytes.count else { throw failure("the value ends early") }
            switch bytes[position] {
            case UInt8(ascii: "\""):
                position += 1
                while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                    position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard position < bytes.count else { throw failure("an unterminated string") }
                position += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                position += 1
                continue
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                position += 1
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                position += 1
                continue
            default:
                // A number, true, false or null: up to the next delimiter.
                while position < bytes.count {
                    switch bytes[position] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D:
                        break
                    default:
                        position += 1
                        continue
                    }
                    break
                }
            }
        } while depth > 0
    }

    /// How many elements (or members) the array (or object) here holds.
    package mutating func countElements(closing: UInt8) throws(EncodingFailure) -> Int {
        position += 1
        skipSpace()
        if peek == closing { return 0 }
        var count = 0
        while true {
            skipSpace()
            try skipValue()
            if closing == UInt8(ascii: "}") {
                skipSpace()
                try expect(UInt8(ascii: ":"))
                try skipValue()
            }
            count += 1
            skipSpace()
            if peek == UInt8(ascii: ",") {
                position += 1
                continue
            }
            try expect(closing)
            return count
        }
    }
}
