import Foundation
import MappingsJSON

/// Opens and reads the files a command is given as input, with the system's reason when it
/// cannot: `cannot read "x": Is a directory`, `No such file or directory`, `Permission denied`.
///
/// Each command ends with exit status 2 on such an input: nothing of it is mapped, and nothing
/// is said to have been read when it was not.
package enum InputFile {
    /// Why an input could not be read: the system's words for `errno`.
    package struct Failure: Error {
        package var reason: String

        package init(errno code: Int32) {
            reason = String(cString: strerror(code))
        }
    }

    /// A descriptor open for reading `path`; directories are refused (reading one fails only later).
    /// `-` is stdin, as for every Unix tool (a descriptor of its own, which the caller closes).
    package static func open(_ path: String) throws(Failure) -> Int32 {
        if path == "-" {
            let descriptor = dup(STDIN_FILENO)
            guard descriptor >= 0 else { throw Failure(errno: errno) }
            return descriptor
        }
        let descriptor = SystemCall.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(errno: errno) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            close(descriptor)
            throw Failure(errno: EISDIR)
        }
        return descriptor
    }

    /// Every byte of `descriptor` up to its end (a FIFO or a pipe too).
    package static func readAll(_ descriptor: Int32) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        let chunk = 1 << 16
        while true {
            let old = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: chunk))
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + old, chunk) }
            bytes.removeLast(chunk - max(0, count))
            if count == 0 { return bytes }
            if count < 0, errno != EINTR { throw Failure(errno: errno) }
        }
    }

    /// The bytes of the file at `path`, or of stdin when `path` is `nil` or `-`.
    package static func bytes(_ path: String?) throws(Failure) -> [UInt8] {
        guard let path, path != "-" else { return try readAll(STDIN_FILENO) }
        let descriptor = try open(path)
        defer { close(descriptor) }
        return try readAll(descriptor)
    }

}
