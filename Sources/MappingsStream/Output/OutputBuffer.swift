import Foundation
import MappingsJSON

/// Lines written to a file descriptor in large writes instead of one system call per line.
package final class OutputBuffer {
    private let descriptor: Int32
    // `@exclusivity(unchecked)`: written by the stream's thread only; no runtime check per line.
    @exclusivity(unchecked) private var bytes: [UInt8] = []

    package init(descriptor: Int32) {
        self.descriptor = descriptor
        bytes.reserveCapacity(1 << 16)
    }

    func line(_ text: String) {
        line(Array(text.utf8))
    }

    func line(_ text: [UInt8]) {
        bytes.append(contentsOf: text)
        bytes.append(UInt8(ascii: "\n"))
        if bytes.count >= 1 << 16 { flush() }
    }

    /// Writes the first `count` bytes of `text` (whole lines): a large piece goes out in one
    /// system call, without being copied into the buffer.
    func write(_ text: [UInt8], count: Int) {
        write(text, range: 0..<count)
    }

    /// Writes `text[range]` (whole lines, or whole frames), as `write(_:count:)` does.
    func write(_ text: [UInt8], range: Range<Int>) {
        guard !range.isEmpty else { return }
        if bytes.count + range.count < 1 << 16 {
            bytes.append(contentsOf: text[range])
            return
        }
        flush()
        text.withUnsafeBytes { raw in Self.writeAll(descriptor, raw.baseAddress! + range.lowerBound, range.count) }
    }

    /// Writes `text` whole (a frame).
    func write(_ text: [UInt8]) {
        write(text, range: text.indices)
    }

    /// Writes `count` bytes at `base` to `descriptor`, in as many calls as it takes.
    private static func writeAll(_ descriptor: Int32, _ base: UnsafeRawPointer, _ count: Int) {
        var offset = 0
        while offset < count {
            let written = SystemCall.write(descriptor, base + offset, count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                break
            }
            offset += written
        }
    }

    func flush() {
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { Self.writeAll(descriptor, base, raw.count) }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
