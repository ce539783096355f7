import Foundation
import MappingsJSON

/// Converting to URL and UUID: strings that parse as written, nothing else.
extension Converter {
    @inline(__always)
    static func convertURL(_ value: JSONValue) -> ScalarConversion {
        guard case .string(let string) = value else { return .failed(mismatch(value, .url)) }
        guard !string.isEmpty, !hasSpaceOrNewline(string),
            let url = URL(string: string, encodingInvalidCharacters: false)
        else {
            return .failed("expected URL, found \(describe(value)), which is not a valid URL")
        }
        return .converted(.url(url))
    }

    @inline(__always)
    static func convertUUID(_ value: JSONValue) -> ScalarConversion {
        guard case .string(let string) = value else { return .failed(mismatch(value, .uuid)) }
        guard let uuid = UUID(uuidString: string) else {
            return .failed("expected UUID, found \(describe(value)), which is not a UUID")
        }
        return .converted(.uuid(uuid))
    }

    /// Whether `string` holds a space or a line break (which no URL has), by its UTF-8 bytes:
    /// U+0020, LF, VT, FF, CR, NEL (C2 85), LS and PS (E2 80 A8/A9).
    static func hasSpaceOrNewline(_ string: String) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in string.utf8 {
            switch byte {
            case 0x20, 0x0A, 0x0B, 0x0C, 0x0D: return true
            case 0x85 where previous.1 == 0xC2: return true
            case 0xA8 where previous == (0xE2, 0x80), 0xA9 where previous == (0xE2, 0x80): return true
            default: previous = (previous.1, byte)
            }
        }
        return false
    }
}
