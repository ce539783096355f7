import Foundation
import MappingsJSON

/// The Language Server Protocol's base protocol over two file descriptors: messages framed by a
/// `Content-Length` header, each a JSON-RPC 2.0 request, response or notification.
package final class LSPConnection {
    /// What reading the next message gave.
    enum Incoming {
        case message(JSONValue)
        /// A frame whose body is not JSON (answered with a parse error, never fatal).
        case unreadable(String)
        /// Nothing arrived within the time asked for.
        case timeout
        /// The editor closed the stream.
        case closed
    }

    private let input: Int32
    private let output: Int32
    private var buffer: [UInt8] = []
    /// The most a message may hold: an editor never sends a file this large.
    static let maximumLength = 256 << 20

    package init(input: Int32 = 0, output: Int32 = 1) {
        self.input = input
        self.output = output
    }

    /// The next message; waits at most `timeout` seconds for it (forever when `nil`).
    func read(timeout: Double?) -> Incoming {
        while true {
            if let frame = takeFrame() { return frame }
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let milliseconds = timeout.map { Int32(max(0, $0 * 1000)) } ?? -1
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .closed
            }
            if ready == 0 { return .timeout }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { Foundation.read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return .closed }
            buffer += chunk[0..<count]
        }
    }

    /// A whole frame from the buffer, when one is there.
    private func takeFrame() -> Incoming? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let headerEnd = buffer.firstRange(of: separator) else {
            if buffer.count > 64 << 10 {
                buffer.removeAll()
                return .unreadable("a header longer than 64 KiB")
            }
            return nil
        }
        let header = String(decoding: buffer[..<headerEnd.lowerBound], as: UTF8.self)
        var length: Int?
        for line in header.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        guard let length, length >= 0, length <= Self.maximumLength else {
            buffer.removeSubrange(..<headerEnd.upperBound)
            return .unreadable("a header without a valid Content-Length")
        }
        guard buffer.count - headerEnd.upperBound >= length else { return nil }
        let body = Array(buffer[headerEnd.upperBound..<(headerEnd.upperBound + length)])
        buffer.removeSubrange(..<(headerEnd.upperBound + length))
        do {
            return .message(try JSONParser.parse(body))
        } catch {
            return .unreadable("the message is not JSON: \(error)")
        }
    }

    /// Writes one message.
    func send(_ message: JSONValue) {
        let body = Array(JSONWriter.string(message).utf8)
        var frame = Array("Content-Length: \(body.count)\r\n\r\n".utf8)
        frame += body
        var offset = 0
        while offset < frame.count {
            let written = frame[offset...].withUnsafeBytes { Foundation.write(output, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

extension JSONValue {
    /// The member `key` of an object; `nil` for anything else.
    func field(_ key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var text: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    var integer: Int? {
        switch self {
        case .integer(let value): Int(exactly: value)
        case .double(let value): Int(exactly: value)
        case .number(let number): number.int64.flatMap { Int(exactly: $0) }
        default: nil
        }
    }

    var elements: [JSONValue] {
        if case .array(let array) = self { return array }
        return []
    }

    /// An object of these members, `nil` values left out.
    static func members(_ members: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        .object(JSONObject(members.compactMap { key, value in value.map { (key, $0) } }))
    }
}
