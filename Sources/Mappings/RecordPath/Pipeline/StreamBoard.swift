package import Synchronization

/// The counts of a running stream, published between blocks for whoever shows them while it
/// runs (`mappings stream --metrics-listen`'s endpoint): the stream writes them, another thread
/// reads them.
package final class StreamBoard: Sendable {
    package let written = Atomic<Int>(0)
    package let rejected = Atomic<Int>(0)
    package let filtered = Atomic<Int>(0)
    /// Read and not yet written, rejected or filtered.
    package let inFlight = Atomic<Int>(0)
    package let version = Atomic<Int>(1)
    package let swapped = Atomic<Int>(0)
    package let refused = Atomic<Int>(0)

    package init() {}

    /// A reload the stream swapped in, or refused.
    package func noteReload(swapped: Bool) {
        if swapped {
            self.swapped.add(1, ordering: .relaxed)
        } else {
            refused.add(1, ordering: .relaxed)
        }
    }

    /// The stream's counts so far, and the catalog version it maps with.
    package func publish(read: Int, written: Int, rejected: Int, filtered: Int, version: Int) {
        self.written.store(written, ordering: .relaxed)
        self.rejected.store(rejected, ordering: .relaxed)
        self.filtered.store(filtered, ordering: .relaxed)
        inFlight.store(max(0, read - written - rejected - filtered), ordering: .relaxed)
        self.version.store(version, ordering: .relaxed)
    }
}
