/// Checks UTF-8 by the rules of RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF.
enum UTF8Check {
    /// The first ill-formed sequence in `bytes[from..<to]`, or `nil` when all of it is well-formed.
    static func firstInvalid(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to end: Int) -> Range<Int>? {
        var index = from
        while index < end {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return index..<index + 1
            }
            guard index + length <= end else { return index..<end }
            let second = bytes[index + 1]
            guard second >= low, second <= high else { return index..<index + 1 }
            for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 {
                return index..<index + offset
            }
            index += length
        }
        return nil
    }
}
