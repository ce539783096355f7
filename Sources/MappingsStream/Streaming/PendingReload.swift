import Foundation
import Mappings
import Synchronization

/// A reload on a thread of its own, so a load that hangs never holds the stream.
///
/// Shared with its thread, it holds only constants and the outcome behind a `Mutex`; what the
/// stream decides about it (whether it waited, whether it gave up) stays in `StreamRun`.
package final class PendingReload: Sendable {
    let started = ContinuousClock.now
    private let result = Mutex<CatalogReloader.Outcome?>(nil)

    init(reloader: CatalogReloader, forced: Bool, timeout: Duration) {
        let deadline = started + timeout
        let thread = Thread { [self] in
            let outcome = forced ? reloader.reload(deadline: deadline) : reloader.reloadIfChanged(deadline: deadline)
            result.withLock { $0 = outcome }
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    var outcome: CatalogReloader.Outcome? { result.withLock { $0 } }
}
