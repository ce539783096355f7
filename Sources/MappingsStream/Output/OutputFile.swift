import Foundation
package import Mappings
import MappingsJSON

/// Creates the files a command writes besides stdout (`--report`, `--rejects`, `--stats`), with
/// the system's reason when it cannot: `cannot write the report "out/r.json": No such file or directory`.
package enum OutputFile {
    /// A descriptor open for writing `path`, created or truncated; with `appending`, created or
    /// written after what it holds (a resumed stream's rejects).
    package static func open(_ path: String, appending: Bool = false) throws(InputFile.Failure) -> Int32 {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (appending ? O_APPEND : O_TRUNC)
        let descriptor = SystemCall.open(path, flags, 0o644)
        guard descriptor >= 0 else { throw InputFile.Failure(errno: errno) }
        return descriptor
    }

    /// Writes `bytes` to the file at `path`, replacing what it held.
    package static func write(_ bytes: [UInt8], to path: String) throws(InputFile.Failure) {
        let descriptor = try open(path)
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                SystemCall.write(descriptor, $0.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw InputFile.Failure(errno: errno)
            }
            offset += written
        }
    }

    /// Checks that a file can later be written at `path` through a temporary file beside it and
    /// a rename (how `--stats` writes), without creating or changing `path` itself.
    package static func checkReplaceable(_ path: String) throws(InputFile.Failure) {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { throw InputFile.Failure(errno: EISDIR) }
        let probe = path + ".tmp-\(getpid())"
        close(try open(probe))
        unlink(probe)
    }

    /// Reports that `path` cannot be written and why, and ends the command with exit status 2.
    package static func unwritable(_ failure: InputFile.Failure, path: String, what: String) -> ToolFailure {
        Terminal.error("error: cannot write \(what) \"\(path)\": \(failure.reason)")
        return ToolFailure(status: .loadFailure)
    }
}
