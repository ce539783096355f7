/// What every reader of JSON text shares: the byte-order mark it skips, the single-character
/// escapes of strings and how a `\u` pair makes a character (the payload parser, the record
/// tape and the `.mappings` parser each read with these, none with its own).
package enum JSONEscape {
    /// Where the text of `bytes` starts: after a UTF-8 byte-order mark, which RFC 8259 §8.1
    /// lets a reader skip and is no part of the text; 0 without one.
    package static func textStart(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// `textStart(of:)` of an array's bytes.
    package static func textStart(of bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { textStart(of: $0) }
    }

    /// Whether a `\u` escape's code unit opens a surrogate pair (the low half must follow).
    package static func isHighSurrogate(_ unit: UInt32) -> Bool {
        (0xD800...0xDBFF).contains(unit)
    }

    /// The character of a surrogate pair; `nil` when `low` is no low surrogate.
    package static func scalar(high: UInt32, low: UInt32) -> Unicode.Scalar? {
        guard (0xDC00...0xDFFF).contains(low) else { return nil }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    /// The character `\x` stands for, for every escape but `\u`; `nil` for anything else.
    package static func character(after byte: UInt8) -> Unicode.Scalar? {
        switch byte {
        case UInt8(ascii: "\""): "\""
        case UInt8(ascii: "\\"): "\\"
        case UInt8(ascii: "/"): "/"
        case UInt8(ascii: "b"): "\u{08}"
        case UInt8(ascii: "f"): "\u{0C}"
        case UInt8(ascii: "n"): "\n"
        case UInt8(ascii: "r"): "\r"
        case UInt8(ascii: "t"): "\t"
        default: nil
        }
    }
}
