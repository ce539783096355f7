#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library's calls the tool makes where a method of the same name would hide them,
/// spelled once for Linux's C library and Darwin's.
package enum SystemCall {
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        #if canImport(Glibc)
            Glibc.open(path, flags, mode)
        #else
            Darwin.open(path, flags, mode)
        #endif
    }

    static func write(_ descriptor: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, base, count)
        #else
            Darwin.write(descriptor, base, count)
        #endif
    }

    /// Leaves the default action of `number` off (a dispatch source then sees it).
    static func ignore(signal number: Int32) {
        #if canImport(Glibc)
            _ = Glibc.signal(number, SIG_IGN)
        #else
            _ = Darwin.signal(number, SIG_IGN)
        #endif
    }
}
