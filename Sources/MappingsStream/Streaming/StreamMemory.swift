/// How a stream's memory behaves: its blocks of input and output come and go by the hundred a
/// second, each a megabyte or so.
package enum StreamMemory {
    /// Has the C allocator serve allocations of up to 64 MiB from its heap and keep up to
    /// 128 MiB of freed memory there, instead of mapping fresh pages for each large block and
    /// unmapping them when it is freed: the kernel would zero and fault in every page of every
    /// block. Memory stays bounded by `--max-in-flight`: what is freed is reused, not grown.
    /// (glibc's; other C libraries keep their own policy.)
    package static func keepBlocksOnTheHeap() {
        #if os(Linux)
            _ = mallopt(mmapThreshold, 64 << 20)
            _ = mallopt(trimThreshold, 128 << 20)
        #endif
    }

    /// `M_MMAP_THRESHOLD` and `M_TRIM_THRESHOLD` of glibc's `malloc.h`, which the Glibc module
    /// does not import (nor `mallopt` itself, declared below by its C name).
    private static let mmapThreshold: Int32 = -3
    private static let trimThreshold: Int32 = -1
}

#if os(Linux)
    /// glibc's `int mallopt(int param, int value)`.
    @_silgen_name("mallopt")
    private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
