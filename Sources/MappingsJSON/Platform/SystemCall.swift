#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library's calls that a method of the same name would hide (`LuaLog.write`, the Lua
/// worker's `send`, the tool's outputs and signals), spelled once for Linux's C library and
/// Darwin's; here, in the leaf, so that every module that needs one uses this one.
package enum SystemCall {
    package static func open(_ path: String, _ flags: Int32, _ mode: UInt32 = 0) -> Int32 {
        #if canImport(Glibc)
            Glibc.open(path, flags, mode_t(mode))
        #else
            Darwin.open(path, flags, mode_t(mode))
        #endif
    }

    package static func write(_ descriptor: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, base, count)
        #else
            Darwin.write(descriptor, base, count)
        #endif
    }

    package static func send(_ socket: Int32, _ base: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
        #if canImport(Glibc)
            Glibc.send(socket, base, count, flags)
        #else
            Darwin.send(socket, base, count, flags)
        #endif
    }

    /// Calls `handler` with the signal's number when one of `numbers` arrives, on whichever of
    /// the process's threads the kernel picks, interrupted calls restarted where they can be;
    /// and unblocks them on the calling thread (threads it starts later inherit that). Why: a
    /// dispatch source runs its handler only once the queue gets a thread, which a loaded
    /// machine's pool may not start for minutes; a handler runs at once. The handler may only
    /// touch lock-free atomics.
    package static func handle(signals numbers: [Int32], with handler: @convention(c) (Int32) -> Void) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in numbers {
            var action = sigaction()
            #if canImport(Glibc)
                action.__sigaction_handler.sa_handler = handler
            #else
                action.__sigaction_u.__sa_handler = handler
            #endif
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
            sigaddset(&mask, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
    }
}
