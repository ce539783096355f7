/// Where the elements of a JSON array's text are, so that each is mapped from its own bytes as
/// one payload (`serve`'s `?many=true`): a number keeps its digits and an object its repeated
/// keys, as they would in a body of their own.
enum JSONArraySpans {
    enum Found: Equatable {
        case elements([Range<Int>])
        /// Valid so far, but not an array: what it is (`an object`, `a string`).
        case notAnArray(String)
        /// Not JSON text around the elements: where, and why. (An element's own text is checked
        /// when it is mapped.)
        case invalid(offset: Int, String)
    }

    /// The elements of the array `bytes` holds (whitespace and a byte-order mark around it).
    static func elements(of bytes: [UInt8]) -> Found {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        skipSpace(bytes, &index)
        guard index < bytes.count else { return .invalid(offset: index, "the body is empty") }
        switch bytes[index] {
        case UInt8(ascii: "["): break
        case UInt8(ascii: "{"): return .notAnArray("an object")
        case UInt8(ascii: "\""): return .notAnArray("a string")
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .notAnArray("a boolean")
        case UInt8(ascii: "n"): return .notAnArray("null")
        default: return .notAnArray("a number")
        }
        index += 1
        var spans: [Range<Int>] = []
        skipSpace(bytes, &index)
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                skipSpace(bytes, &index)
                let start = index
                guard let end = valueEnd(bytes, from: index) else {
                    return .invalid(offset: index, "an element is cut off, or no value starts there")
                }
                spans.append(start..<end)
                index = end
                skipSpace(bytes, &index)
                guard index < bytes.count else { return .invalid(offset: index, "the array is not closed") }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    break
                }
                guard bytes[index] == UInt8(ascii: ",") else {
                    return .invalid(offset: index, "expected ',' or ']' after an element")
                }
                index += 1
            }
        }
        skipSpace(bytes, &index)
        guard index == bytes.count else { return .invalid(offset: index, "text after the array") }
        return .elements(spans)
    }

    private static func skipSpace(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count,
            bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\n")
                || bytes[index] == UInt8(ascii: "\r")
                || bytes[index] == UInt8(ascii: "\t")
        {
            index += 1
        }
    }

    /// Where the value starting at `start` ends: after its closing bracket or quote, or at the
    /// first byte that cannot be part of a scalar; `nil` when it is cut off or empty.
    private static func valueEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        var index = start
        var depth = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return index + 1 }
                }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return index > start ? index : nil }
                depth -= 1
                if depth == 0 { return index + 1 }
            case UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                if depth == 0 { return index > start ? index : nil }
            default:
                break
            }
            index += 1
        }
        return depth == 0 && !inString && index > start ? index : nil
    }
}
