/// Per-record mapping times in a fixed set of buckets: four per power of two of nanoseconds,
/// so a percentile is known within 25%, in 256 counters allocated once.
///
/// Recording is an index computation and an increment: no allocation per record, which is
/// why the stream keeps this instead of the times themselves.
package struct LatencyHistogram: Sendable {
    private var buckets = [Int](repeating: 0, count: 256)
    package private(set) var count = 0

    package init() {}

    /// The bucket of `nanoseconds`: the value itself below 4, else four per power of two.
    static func bucket(of nanoseconds: UInt64) -> Int {
        guard nanoseconds >= 4 else { return Int(nanoseconds) }
        let exponent = 63 - nanoseconds.leadingZeroBitCount
        let mantissa = Int(truncatingIfNeeded: (nanoseconds >> UInt64(exponent - 2)) & 3)
        return 4 * (exponent - 1) + mantissa
    }

    /// The largest value bucket `index` holds.
    static func upperBound(of index: Int) -> UInt64 {
        guard index >= 4 else { return UInt64(index) }
        let exponent = index / 4 + 1
        let mantissa = UInt64(index % 4)
        let next = (4 + mantissa + 1) << UInt64(exponent - 2)
        return next == 0 ? .max : next - 1
    }

    package mutating func record(nanoseconds: UInt64) {
        buckets[Self.bucket(of: nanoseconds)] += 1
        count += 1
    }

    /// The time at or under which `fraction` of the records were mapped (the upper bound of
    /// the bucket that reaches it), or nil before any record.
    package func percentile(_ fraction: Double) -> UInt64? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((Double(count) * fraction).rounded(.up)))
        var seen = 0
        for (index, number) in buckets.enumerated() {
            seen += number
            if seen >= rank { return Self.upperBound(of: index) }
        }
        return nil
    }

    /// Adds the records of `other` (a lane's, a chunk's) to these.
    package mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        for index in buckets.indices { buckets[index] += other.buckets[index] }
        count += other.count
    }
}
