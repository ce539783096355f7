import Dispatch
import Foundation
import Mappings

/// `--watch` and SIGHUP for a stream: when to look for edits, the reload on its own thread,
/// and how long the stream waits for it.
///
/// Looked at between blocks: with `--watch`, edits are picked up at most every 250 ms; SIGHUP
/// forces a reload. A new version is swapped in only when it loads and its tests pass within
/// the reload timeout, and only if it still has the context; every swap (with its version) and
/// refusal is logged on stderr. The stream waits for a reload once, up to a second, then goes on
/// with the version it has and looks again between blocks without waiting.
package struct StreamReloads {
    let reloader: CatalogReloader
    /// How long a reload may take before it is refused.
    let timeout: Duration
    /// When to look: SIGHUP at once, edits every 250 ms.
    private let schedule = ReloadSchedule(watchEvery: .milliseconds(250))
    private var pending: PendingReload?
    /// Whether the stream has waited for `pending` (it waits at most once, at the start).
    private var waited = false
    /// Whether the stream gave up waiting for `pending` (and logged the refusal).
    private var abandoned = false

    init(reloader: CatalogReloader, timeout: Duration) {
        self.reloader = reloader
        self.timeout = timeout
    }

    /// What a look between blocks found.
    enum Change {
        case none
        /// A version that loaded, its tests passing: swap it in.
        case swapped(CatalogReloader.Version)
        /// The files refused: why, and whether it was for taking too long.
        case refused(reason: String, timedOut: Bool)
    }

    /// Starts a reload when one is due (SIGHUP, or `--watch`'s interval), and says what the one
    /// under way came to, if it has ended.
    mutating func look(_ stop: StopSignal) -> Change {
        if stop.takeHangup() { schedule.ask() }
        if pending == nil {
            guard let due = schedule.due() else { return .none }
            pending = PendingReload(reloader: reloader, forced: due == .forced, timeout: timeout)
            waited = false
            abandoned = false
        }
        guard let reload = pending else { return .none }
        if !waited {
            waited = true
            let waitUntil = min(reload.started + timeout, ContinuousClock.now + .seconds(1))
            while reload.outcome == nil, ContinuousClock.now < waitUntil, stop.raisedSignal == nil {
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
        guard let outcome = reload.outcome else {
            if !abandoned, ContinuousClock.now >= reload.started + timeout {
                abandoned = true
                return .refused(reason: "loading took longer than \(timeout) (--reload-timeout)", timedOut: true)
            }
            return .none
        }
        pending = nil
        // An abandoned reload was reported as refused when it was given up; the reloader refused it too.
        if abandoned { return .none }
        switch outcome {
        case .unchanged: return .none
        case .swapped(let version): return .swapped(version)
        case .refused(let reason): return .refused(reason: reason, timedOut: false)
        }
    }
}
