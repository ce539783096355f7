import Dispatch
import Foundation
import MappingsJSON
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM, turned into a flag the stream checks between records, so records in
/// flight are finished and counted instead of dropped; SIGHUP, counted, asks for a reload.
///
/// Not `Sendable`: the stream's thread owns it. The signal handlers, on Dispatch's queue,
/// touch only the two atomics.
package final class StopSignal {
    private let raised = Atomic<Int32>(0)
    private let hangups = Atomic<Int>(0)
    /// Kept alive for the life of the run; only touched in `init`.
    private let sources: [any DispatchSourceSignal]

    package init() {
        let numbers = [SIGINT, SIGTERM, SIGHUP]
        sources = numbers.map { number in
            SystemCall.ignore(signal: number)
            return DispatchSource.makeSignalSource(signal: number, queue: .global())
        }
        for (source, number) in zip(sources, numbers) {
            source.setEventHandler { [weak self] in
                guard let self else { return }
                if number == SIGHUP {
                    self.hangups.add(1, ordering: .relaxed)
                } else {
                    self.raised.store(number, ordering: .relaxed)
                }
            }
            source.resume()
        }
    }

    /// The signal that asked to stop, if one did.
    var raisedSignal: Int32? {
        let number = raised.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// Takes the pending SIGHUPs: whether one came since the last call.
    func takeHangup() -> Bool {
        hangups.exchange(0, ordering: .relaxed) > 0
    }
}
