package import Mappings
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The log lines of one record, held while a worker maps it so that a stream writes every
/// record's lines in input order, whichever worker mapped it and whenever it finished.
///
/// A thread captures with `LuaLog.capturing(_:)`; lines its scripts log meanwhile (on that
/// thread, or on the larger-stack thread a call may move to) are kept here instead of being
/// written, already formatted and within the rate limit; the caller writes them with
/// `LuaLog.write(captured:)` when the record's turn comes.
package final class LuaLogCapture: Sendable {
    private let entries = Mutex<[ScriptLogEntry]>([])

    /// Keeps one line.
    func append(_ entry: ScriptLogEntry) {
        entries.withLock { $0.append(entry) }
    }

    /// The lines held so far, emptied.
    func take() -> [ScriptLogEntry] {
        entries.withLock { entries in
            defer { entries = [] }
            return entries
        }
    }

    /// The capture of the calling thread, when it is capturing.
    static var current: LuaLogCapture? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        let capture = Unmanaged<LuaLogCapture>.fromOpaque(pointer).takeUnretainedValue()
        return capture.isActive.load(ordering: .relaxed) ? capture : nil
    }

    /// Whether lines are held now (the owning thread sets it around a record).
    private let isActive = Atomic(false)

    /// The calling thread's capture, made on its first use and kept until the thread ends: a
    /// lane reuses it for every record, so capturing allocates nothing per record.
    static var ofThisThread: LuaLogCapture {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<LuaLogCapture>.fromOpaque(pointer).takeUnretainedValue()
        }
        let capture = LuaLogCapture()
        pthread_setspecific(key, Unmanaged.passRetained(capture).toOpaque())
        return capture
    }

    /// Starts or stops holding lines back.
    func setActive(_ active: Bool) {
        isActive.store(active, ordering: .relaxed)
    }

    /// The thread-specific slot, made once per process; the capture it holds is released when
    /// its thread ends. Why thread-specific: a lane sets it per record without a lock.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<LuaLogCapture>.fromOpaque(pointer).release()
        }
        precondition(status == 0, "cannot make a thread-specific key for log captures (status \(status))")
        return key
    }()
}

extension LuaLog {
    /// Runs `body` with the lines scripts log on this thread held back, and returns those lines
    /// (within the rate limit), for the caller to write in its own order with
    /// `write(captured:record:)`: `RecordPipeline`'s capture, so that a stream's lines come out
    /// in input order whatever the worker count.
    package static func capturing(_ body: () -> Void) -> [ScriptLogEntry] {
        let capture = LuaLogCapture.ofThisThread
        capture.setActive(true)
        body()
        capture.setActive(false)
        return capture.take()
    }
}
