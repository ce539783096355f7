import Foundation

/// Lines written to a file descriptor in large writes instead of one system call per line.
final class OutputBuffer {
    private let descriptor: Int32
    // `@exclusivity(unchecked)`: written by the stream's thread only; no runtime check per line.
    @exclusivity(unchecked) private var bytes: [UInt8] = []

    init(descriptor: Int32) {
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

    func flush() {
        var offset = 0
        bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    break
                }
                offset += written
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
