import Foundation

/// The threads lanes run on, kept from chunk to chunk (a fresh thread per chunk costs more
/// than the mapping of small records). Threads of their own, not Dispatch's pool: a lane stuck
/// in a long call must not take the threads the signal handlers run on; a job that finds no
/// idle thread gets a new one. 8 MiB of stack each, for Lua's C recursion.
///
/// `@unchecked Sendable` because it is shared by every thread it starts: `jobs` and `idle` are
/// read and written only with `condition` locked, which the compiler cannot check (an
/// `NSCondition`, since idle threads wait on it, which `Mutex` cannot).
package final class LanePool: @unchecked Sendable {
    package static let shared = LanePool()
    private var condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var idle = 0

    private init() {
        // A process forked from one that mapped (Python's multiprocessing, a pre-forking
        // server) has none of the parent's threads: the child starts from an empty pool, with a
        // lock no thread of the parent may be holding.
        pthread_atfork(nil, nil) { LanePool.shared.forgetThreads() }
    }

    /// In a forked child: no thread of the pool exists, and none holds its lock.
    private func forgetThreads() {
        condition = NSCondition()
        jobs = []
        idle = 0
    }

    package func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let spare = idle >= jobs.count
        if spare { condition.signal() }
        condition.unlock()
        guard !spare else { return }
        let thread = Thread { self.serve() }
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func serve() {
        condition.lock()
        while true {
            while jobs.isEmpty {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
            condition.lock()
        }
    }
}
