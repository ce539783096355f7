/// Bytes as a base64 JSON string (RFC 4648, with padding), the way bytes and fixed values read.
package enum AvroBase64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends `bytes` as a quoted base64 string.
    package static func append(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        output.reserveCapacity(output.count + (bytes.count + 2) / 3 * 4 + 1)
        var index = 0
        while index < bytes.count {
            let chunk = min(3, bytes.count - index)
            var word = UInt32(bytes[index]) << 16
            if chunk > 1 { word |= UInt32(bytes[index + 1]) << 8 }
            if chunk > 2 { word |= UInt32(bytes[index + 2]) }
            for sextet in 0..<4 {
                guard sextet <= chunk else {
                    output.append(UInt8(ascii: "="))
                    continue
                }
                output.append(alphabet[Int(word >> UInt32(18 - 6 * sextet) & 0x3F)])
            }
            index += 3
        }
        output.append(UInt8(ascii: "\""))
    }
}
