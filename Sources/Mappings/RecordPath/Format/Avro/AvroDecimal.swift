/// Avro's decimals: a two's-complement big-endian unscaled integer and the schema's scale.
package enum AvroDecimal {
    /// The decimal's text: the unscaled integer's digits with `scale` of them after the point
    /// (`-12340` at scale 2 is `-123.40`; `5` at scale 3 is `0.005`).
    package static func text(unscaled bytes: UnsafeRawBufferPointer, scale: Int) -> String {
        guard let first = bytes.first else { return scale == 0 ? "0" : "0." + String(repeating: "0", count: scale) }
        let negative = first & 0x80 != 0
        // The magnitude, base 256 big-endian: the bytes, negated when negative (invert, add one).
        var magnitude = bytes.map { negative ? ~$0 : $0 }
        if negative {
            for index in magnitude.indices.reversed() {
                magnitude[index] &+= 1
                if magnitude[index] != 0 { break }
            }
        }
        // Base 256 to base 10, a digit at a time (a decimal's bytes are few: checked by the reader).
        var digits: [UInt8] = []
        while magnitude.contains(where: { $0 != 0 }) {
            var remainder = 0
            for index in magnitude.indices {
                let current = remainder * 256 + Int(magnitude[index])
                magnitude[index] = UInt8(current / 10)
                remainder = current % 10
            }
            digits.append(UInt8(ascii: "0") + UInt8(remainder))
        }
        if digits.isEmpty { digits = [UInt8(ascii: "0")] }
        while digits.count <= scale { digits.append(UInt8(ascii: "0")) }
        var text = negative ? "-" : ""
        let ordered = String(decoding: digits.reversed(), as: UTF8.self)
        text += ordered.dropLast(scale)
        if scale > 0 { text += "." + ordered.suffix(scale) }
        return text
    }
}

extension AvroDecimal {
    /// The two's complement big-endian bytes of the integer of ASCII `digits` (empty: zero),
    /// as few as hold it with its sign.
    package static func twosComplement(digits: [UInt8], negative: Bool) -> [UInt8] {
        // Base 10 to base 256, a byte at a time (least significant first).
        var decimal = digits.map { Int($0 - 48) }
        var magnitude: [UInt8] = []
        while decimal.contains(where: { $0 != 0 }) {
            var remainder = 0
            for index in decimal.indices {
                let current = remainder * 10 + decimal[index]
                decimal[index] = current / 256
                remainder = current % 256
            }
            magnitude.append(UInt8(remainder))
        }
        magnitude.reverse()
        if magnitude.isEmpty { return [0] }
        // A leading byte whose high bit is set would read as negative: one more byte.
        if magnitude[0] & 0x80 != 0 { magnitude.insert(0, at: 0) }
        guard negative else { return magnitude }
        var bytes = magnitude.map { ~$0 }
        for index in bytes.indices.reversed() {
            bytes[index] &+= 1
            if bytes[index] != 0 { break }
        }
        // -128 is 0x80 alone, not 0xFF 0x80.
        while bytes.count > 1, bytes[0] == 0xFF, bytes[1] & 0x80 != 0 { bytes.removeFirst() }
        return bytes
    }
}
