import Dispatch
import Foundation
import MappingsJSON
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the signal handler sets: the signal that asked to stop (0 while none did), and the
/// SIGHUPs not yet taken. Globals, because a C signal handler captures nothing.
private let raisedStop = Atomic<Int32>(0)
private let pendingHangups = Atomic<Int>(0)

/// SIGINT and SIGTERM, turned into a flag the stream checks between records (and at least every
/// 100 ms while it waits for input), so records in flight are finished and counted instead of
/// dropped; SIGHUP, counted, asks for a reload.
///
/// A signal handler, not a dispatch source: a source's handler waits for a thread of Dispatch's
/// pool, and on a loaded machine that thread may not come (a stream signalled while its lanes
/// ran scripts on both processors went on waiting for input). The handler touches only the two
/// atomics. Not `Sendable`: the stream's thread owns it; one run at a time (a new one starts clear).
package final class StopSignal {
    package init() {
        raisedStop.store(0, ordering: .relaxed)
        pendingHangups.store(0, ordering: .relaxed)
        SystemCall.handle(signals: [SIGINT, SIGTERM, SIGHUP]) { number in
            if number == SIGHUP {
                pendingHangups.add(1, ordering: .relaxed)
            } else {
                raisedStop.store(number, ordering: .relaxed)
            }
        }
    }

    /// The signal that asked to stop, if one did.
    var raisedSignal: Int32? {
        let number = raisedStop.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// Takes the pending SIGHUPs: whether one came since the last call.
    func takeHangup() -> Bool {
        pendingHangups.exchange(0, ordering: .relaxed) > 0
    }
}
