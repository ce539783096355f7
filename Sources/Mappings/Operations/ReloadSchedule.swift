import Synchronization

/// When a catalog is looked at again — the one schedule every surface that reloads keeps
/// (`mappings stream --watch`, `mappings serve`): a reload asked for (SIGHUP) is due at once and
/// forced (the files loaded again even when unchanged); with watching on, a look for edited
/// files is due every `interval`. What a reload does is `CatalogReloader`'s.
package final class ReloadSchedule: Sendable {
    /// What is due.
    package enum Due: Sendable, Equatable {
        /// A reload asked for: load again whatever the files say.
        case forced
        /// The watch interval passed: reload if a file changed.
        case ifChanged
    }

    private let interval: Duration?
    private let asked = Atomic<Int>(0)
    private let lastLook: Mutex<ContinuousClock.Instant>

    /// A schedule that watches the files every `interval` (`nil`: only when asked).
    package init(watchEvery interval: Duration?) {
        self.interval = interval
        lastLook = Mutex(.now)
    }

    /// Asks for a reload (SIGHUP): the next `due()` says `.forced`.
    package func ask() {
        asked.add(1, ordering: .relaxed)
    }

    /// What is due now, if anything; a look at the files restarts the interval.
    package func due(now: ContinuousClock.Instant = .now) -> Due? {
        if asked.exchange(0, ordering: .relaxed) > 0 {
            lastLook.withLock { $0 = now }
            return .forced
        }
        guard let interval else { return nil }
        return lastLook.withLock { last in
            guard now - last >= interval else { return nil }
            last = now
            return .ifChanged
        }
    }
}
