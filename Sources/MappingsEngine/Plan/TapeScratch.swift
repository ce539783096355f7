import MappingsJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread's scratch tape for fast plans: kept from record to record so that a scan
/// allocates nothing once its arrays have grown to the records' size.
///
/// `@unchecked Sendable`: each instance is reached only from the thread it belongs to (a
/// POSIX thread-specific value), which the compiler cannot check.
final class TapeScratch: @unchecked Sendable {
    var tape = JSONTape()

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<TapeScratch>.fromOpaque(pointer).release()
        }
        return key
    }()

    /// The calling thread's scratch, made on its first use.
    static var current: TapeScratch {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<TapeScratch>.fromOpaque(pointer).takeUnretainedValue()
        }
        let scratch = TapeScratch()
        pthread_setspecific(key, Unmanaged.passRetained(scratch).toOpaque())
        return scratch
    }
}
