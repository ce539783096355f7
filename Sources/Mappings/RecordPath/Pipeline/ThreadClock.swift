#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// CPU time, of the calling thread and of the process: what tells the work of a stream's lanes
/// from its reading, writing and start (`--stats`, `cpuSeconds`).
package enum ThreadClock {
    /// The CPU time the calling thread has used, in nanoseconds.
    package static func cpuNanoseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    /// The CPU time (user and system) every thread of the process has used, in nanoseconds.
    package static func processCPUNanoseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }
}
