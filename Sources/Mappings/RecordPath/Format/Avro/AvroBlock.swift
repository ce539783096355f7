/// A block of a container file: how many datums it holds, where its (compressed) datums are, and
/// its size with the sync marker that ends it.
struct AvroBlock {
    let count: Int
    /// Where the datums start, after the count and the size.
    let dataStart: Int
    /// Where the datums end, and the sync marker starts.
    let end: Int
    /// The block's size, sync marker included.
    var size: Int { end + 16 }

    /// What the bytes at the start of the rest of the input hold.
    enum Step {
        /// A whole block, its sync marker the header's.
        case block(AvroBlock)
        /// Not all of the block has come.
        case incomplete
        /// No block: why, and how many bytes to skip to the next sync marker's end (all of them
        /// when there is none).
        case corrupt(String, skipped: Int)
    }

    /// The block at the start of `bytes`; `ended` when no bytes will follow them.
    static func read(_ bytes: UnsafeRawBufferPointer, header: AvroContainerHeader, ended: Bool) -> Step {
        var scan = AvroScan(bytes: bytes, position: 0)
        let count: Int64
        let size: Int64
        do throws(AvroScan.Stop) {
            count = try scan.varint()
            size = try scan.varint()
        } catch {
            switch error {
            case .incomplete:
                return ended
                    ? corrupt("the input ends inside a block's count and size", bytes, header, ended) : .incomplete
            case .corrupt(let message): return corrupt(message, bytes, header, ended)
            }
        }
        guard size >= 0, size <= Int64(AvroContainerDecoder.maximumBlock), count >= 0, count <= max(size, 1) << 32
        else {
            return corrupt("a block of \(count) records in \(size) bytes", bytes, header, ended)
        }
        let end = scan.position + Int(size)
        guard end + 16 <= bytes.count else {
            return ended ? corrupt("the input ends inside the block", bytes, header, ended) : .incomplete
        }
        guard bytes[end..<end + 16].elementsEqual(header.sync) else {
            return corrupt("its sync marker is not the header's", bytes, header, ended)
        }
        return .block(AvroBlock(count: Int(count), dataStart: scan.position, end: end))
    }

    /// A corrupt block: the bytes up to the end of the next sync marker are skipped, all of them
    /// at the input's end; until then, a marker not found yet is waited for (up to twice the
    /// largest block), so that the corrupt stretch is one reject however its bytes come.
    private static func corrupt(
        _ message: String, _ bytes: UnsafeRawBufferPointer, _ header: AvroContainerHeader, _ ended: Bool
    ) -> Step {
        let sync = header.sync
        var index = 1
        while index + 16 <= bytes.count {
            if bytes[index] == sync[0], bytes[index..<index + 16].elementsEqual(sync) {
                return .corrupt(message, skipped: index + 16)
            }
            index += 1
        }
        if !ended, bytes.count <= 2 * AvroContainerDecoder.maximumBlock { return .incomplete }
        return .corrupt(message, skipped: bytes.count)
    }
}
