/// The single-character escapes of JSON strings, shared by both readers.
package enum JSONEscape {
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
