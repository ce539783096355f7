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

    /// Leaves the default action of `number` off (a dispatch source then sees it).
    package static func ignore(signal number: Int32) {
        #if canImport(Glibc)
            _ = Glibc.signal(number, SIG_IGN)
        #else
            _ = Darwin.signal(number, SIG_IGN)
        #endif
    }
}
