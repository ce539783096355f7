#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library's calls that a method of the same name (`LuaLog.write`, the worker's `send`)
/// would hide, spelled once for Linux's C library and Darwin's.
enum SystemCall {
    static func write(_ descriptor: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, base, count)
        #else
            Darwin.write(descriptor, base, count)
        #endif
    }

    static func send(_ socket: Int32, _ base: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
        #if canImport(Glibc)
            Glibc.send(socket, base, count, flags)
        #else
            Darwin.send(socket, base, count, flags)
        #endif
    }
}
