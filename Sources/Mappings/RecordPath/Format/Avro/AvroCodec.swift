internal import CAvro

/// One of avro-c's block codecs, opened by name and closed when the last reference goes: what
/// compresses and decompresses a container's blocks (the container's framing is the format's).
final class AvroCodec {
    /// The codec's name, as a container's header says it.
    let name: String
    private let codec: OpaquePointer

    /// Why a codec cannot be had: avro-c missing (with the package to install), or a name it
    /// does not know.
    struct Unavailable: Error {
        var message: String
    }

    /// The codecs avro-c 1.11 (Debian's libavro23) has: "lzma" is its own (raw LZMA2), not the
    /// specification's "xz", which it cannot read.
    static let names = ["null", "deflate", "snappy", "lzma"]

    init(named name: String) throws(Unavailable) {
        guard Self.names.contains(name) else {
            throw Unavailable(
                message:
                    "the codec \"\(name)\" is not one avro-c reads and writes (\(Self.names.joined(separator: ", ")))")
        }
        var error: UnsafePointer<CChar>?
        guard let codec = mappings_avro_codec_open(name, &error) else {
            throw Unavailable(message: error.map { String(cString: $0) } ?? "avro-c could not open the codec \(name)")
        }
        self.name = name
        self.codec = codec
    }

    deinit {
        mappings_avro_codec_close(codec)
    }

    /// Calls `body` with a block's datums, decompressed (valid only during the call); avro-c's
    /// message when the block does not decompress.
    func decode<T>(
        _ block: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(AvroDatumError) -> T
    ) throws(AvroDatumError) -> T {
        guard name != "null" else { return try body(block) }
        var output: UnsafeRawPointer?
        var length: Int64 = 0
        var error: UnsafePointer<CChar>?
        let empty: [UInt8] = [0]
        let status = empty.withUnsafeBytes { fallback in
            mappings_avro_codec_decode(
                codec, block.baseAddress ?? fallback.baseAddress!, Int64(block.count), &output, &length, &error)
        }
        guard status == 0, let output else {
            let message = error.map { String(cString: $0) } ?? "avro-c could not decompress it"
            throw AvroDatumError(
                message: "the block does not decompress with \(name): \(message)", offset: 0, path: "$")
        }
        return try body(UnsafeRawBufferPointer(start: output, count: Int(length)))
    }

    /// A block of datums compressed, as the container stores it.
    func encode(_ datums: [UInt8]) throws(Unavailable) -> [UInt8] {
        guard name != "null", !datums.isEmpty else { return datums }
        var output: UnsafeRawPointer?
        var length: Int64 = 0
        var error: UnsafePointer<CChar>?
        let status = datums.withUnsafeBytes {
            mappings_avro_codec_encode(codec, $0.baseAddress!, Int64($0.count), &output, &length, &error)
        }
        guard status == 0, let output else {
            throw Unavailable(
                message: "avro-c could not compress a block with \(name): " + (error.map { String(cString: $0) } ?? ""))
        }
        return Array(UnsafeRawBufferPointer(start: output, count: Int(length)))
    }
}

extension AvroCodec {
    /// Why avro-c cannot be loaded (the package to install), `nil` when it can.
    static var unavailability: String? {
        mappings_avro_load().map { String(cString: $0) }
    }
}
