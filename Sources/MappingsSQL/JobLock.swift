import Foundation

/// The lock of a job on a SQLite database: one stream a job, since a second one would write
/// what the first one writes. A file beside the database the path resolves to (links
/// followed, so that two names of one database share it), `FILE.JOB.lock`, held with `flock`
/// while the stream runs, released by the system however the stream ends, and removed when
/// the stream lets go of it. The batches' compare-and-set on `mappings_offsets` is the
/// second guard, for whatever gets round this one.
final class JobLock {
    let descriptor: Int32
    let path: String

    init(_ job: String, of database: String) throws(DatabaseError) {
        let resolved = Self.resolved(database)
        let name = job.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? String($0) : "_" }.joined()
        path = "\(resolved).\(name.prefix(100)).lock"
        // The file may be removed by the stream holding it between our open and our lock: a
        // lock taken on a file no longer at the path is let go of, and the path opened again.
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw DatabaseError(
                    "cannot open the lock file of the job \"\(job)\", \(path): \(String(cString: strerror(errno)))",
                    unavailable: false)
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                throw DatabaseError(
                    "the job \"\(job)\" is running in another stream (which holds \(path))", unavailable: false)
            }
            var held = stat()
            var named = stat()
            if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino,
                held.st_dev == named.st_dev
            {
                self.descriptor = descriptor
                return
            }
            close(descriptor)
        }
    }

    /// The file removed while it is held (no other stream can then hold it), then closed.
    deinit {
        unlink(path)
        close(descriptor)
    }

    /// The path with every link resolved (the database's own name); as given when it does not
    /// exist yet (its folder resolved).
    static func resolved(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        guard let real = realpath(folder, nil) else { return path }
        defer { free(real) }
        return String(cString: real) + "/" + url.lastPathComponent
    }
}
