internal import CLuaSandbox
package import Mappings
import MappingsJSON
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the lines scripts write with `log(...)` (or `print`) go: standard error, one line each,
/// never standard output.
///
/// A line names the script line that logged, and the record being mapped when a host set one
/// (`mappings stream` sets each record's input line):
/// ```
/// scripts/Geo.lua:12: [record 42] lat	51.5	{lat=51.5, lon=-0.12}
/// ```
/// The sandbox keeps at most `linesPerCall` lines of one call (`CLUA_LOG_LINES_PER_CALL`); here
/// each script may write at most `linesPerSecond` lines a second. Lines over either limit are
/// dropped and counted; `droppedSummary` says how many, for the end of a run.
package final class LuaLog: Sendable {
    /// The most lines one script writes in one second; later lines in that second are dropped.
    package static let linesPerSecond = 100
    /// The most lines one call keeps (the sandbox drops the rest).
    package static let linesPerCall = Int(CLUA_LOG_LINES_PER_CALL)

    /// Writes to standard error; the one every `LuaScripts` uses unless told otherwise, so the
    /// rate limit and the count of dropped lines span every reload of the scripts.
    package static let standardError = LuaLog { line in
        line.utf8CString.withUnsafeBufferPointer { text in
            var offset = 0
            let count = text.count - 1
            while offset < count {
                let written = SystemCall.write(STDERR_FILENO, text.baseAddress! + offset, count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// Logging turned off (`--quiet`): scripts' `log(...)` calls cost their budget and write nothing.
    package static let off = LuaLog(enabled: false) { _ in }

    /// Whether lines are kept at all.
    let enabled: Bool
    private let write: @Sendable (String) -> Void
    private let state = Mutex(State())

    private struct State {
        /// Per script: the second its window started (monotonic) and the lines written in it.
        var windows: [String: (second: UInt64, lines: Int)] = [:]
        var dropped = 0
    }

    /// A log that hands each finished line (with its newline) to `write`, which may be called
    /// from several threads at once but never for two lines at the same time.
    package init(enabled: Bool = true, write: @escaping @Sendable (String) -> Void) {
        self.enabled = enabled
        self.write = write
    }

    /// What the sandbox keeps of one call: at most this many lines.
    var callLimit: Int32 { enabled ? CLUA_LOG_LINES_PER_CALL : 0 }

    /// Sets the record the calling thread maps (its input line; 0: none), which the lines its
    /// scripts log from now on carry.
    package static func setRecord(_ record: Int) {
        clua_log_set_record(Int64(record))
    }

    /// The record the calling thread maps, as `setRecord` left it.
    static var record: Int64 { clua_log_record() }

    /// Writes the lines of one call (`place\tmessage\n` each, as the sandbox keeps them), within
    /// the rate limit, and counts those the sandbox dropped; into `capture` instead, when given
    /// (the capture of the thread that asked for the call: `LuaLog.capturing(_:)`).
    func emit(_ batch: LuaLogBatch, record: Int64, capture: LuaLogCapture?) {
        guard enabled, !batch.isEmpty else { return }
        let second = currentSecond()
        let text = String(decoding: batch.lines, as: UTF8.self)
        state.withLock { state in
            state.dropped += batch.dropped
            for entry in text.split(separator: "\n") {
                let parts = entry.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
                let place = parts[0]
                let message = parts.count > 1 ? parts[1] : ""
                // A String of its own: a Substring key would keep the whole batch alive.
                let script = String(place.lastIndex(of: ":").map { place[..<$0] } ?? place)
                var window = state.windows[script] ?? (second, 0)
                if window.second != second { window = (second, 0) }
                window.lines += 1
                state.windows[script] = window
                guard window.lines <= Self.linesPerSecond else {
                    state.dropped += 1
                    continue
                }
                if let capture {
                    capture.append(ScriptLogEntry(place: String(place), message: String(message)))
                } else {
                    let tag = record > 0 ? "[record \(record)] " : ""
                    write("\(place): \(tag)\(message)\n")
                }
            }
        }
    }

    /// Writes the lines a capture held for one record (`LuaLog.capturing(_:)`), naming the
    /// record (its input line; 0: none), as `emit` would have.
    package func write(captured entries: [ScriptLogEntry], record: Int) {
        guard enabled, !entries.isEmpty else { return }
        let tag = record > 0 ? "[record \(record)] " : ""
        let text = entries.map { "\($0.place): \(tag)\($0.message)\n" }.joined()
        state.withLock { _ in write(text) }
    }

    /// Lines dropped so far (over the limit of a call or of a second).
    package var dropped: Int { state.withLock { $0.dropped } }

    /// `mappings: 12 log lines dropped (…)` when any were, for the end of a run.
    package var droppedSummary: String? {
        let dropped = self.dropped
        guard dropped > 0 else { return nil }
        return
            "mappings: \(dropped) log line\(dropped == 1 ? "" : "s") dropped (scripts may log \(Self.linesPerCall) lines per call and \(Self.linesPerSecond) lines per second each)"
    }

    /// The monotonic clock's whole seconds: the windows of the rate limit.
    private func currentSecond() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec)
    }
}

/// The lines one sandboxed operation logged, as the sandbox keeps them, and how many it dropped.
struct LuaLogBatch: Sendable {
    var lines: [UInt8] = []
    var dropped = 0

    var isEmpty: Bool { lines.isEmpty && dropped == 0 }
}
