import MappingsJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread's scratch space for fast plans, kept from record to record so that a record
/// allocates nothing once the tape and the output have grown to the records' size.
///
/// `@unchecked Sendable`: each instance is reached only from the thread it belongs to (a
/// POSIX thread-specific value), which the compiler cannot check.
final class TapeScratch: @unchecked Sendable {
    @exclusivity(unchecked) var tape = JSONTape()
    @exclusivity(unchecked) var output = OutputBytes()
    /// The nodes of the fan-outs of the record being written (`Writer.Found.fanOut` is a range
    /// of it): emptied for each record, grown once to the largest.
    @exclusivity(unchecked) var fanOuts = FanOutNodes()
    /// The text of the keyed selection being put together (`Writer.selection`).
    @exclusivity(unchecked) var selection: [UInt8] = []
    /// A transformer's answer as it is written (`Writer.writesPlain`).
    @exclusivity(unchecked) var text: [UInt8] = []
    /// The tags of a value the encoding writes for the plan (`Writer.emit(json:field:into:)`).
    @exclusivity(unchecked) var tags: [UInt8] = []
    /// The text of a `@lookup` key that holds escapes, decoded (`Writer.writesLookup`).
    @exclusivity(unchecked) var key = OutputBytes(capacity: 256)

    deinit {
        tape.free()
        output.free()
        key.free()
        fanOuts.free()
    }

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

/// A growable run of output bytes that appends without the checks an array makes for each
/// append (uniqueness, a generic copy): the fast plan's output, copied out once per record.
/// Its owner frees it (`free()`); it is never copied.
struct OutputBytes {
    private(set) var base: UnsafeMutablePointer<UInt8>
    var count = 0
    private var capacity: Int

    init(capacity: Int = 4096) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    func free() { base.deallocate() }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        grow(count + extra)
    }

    private mutating func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Appends `length` bytes of `source` from `start`.
    @inline(__always)
    mutating func append(_ source: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) {
        reserve(length + 16)
        let from = UnsafeRawPointer(source.baseAddress! + start)
        let to = UnsafeMutableRawPointer(base + count)
        if length <= 16, length >= 8 {
            // Two words that may overlap: short keys and values without a call to memmove.
            to.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
            to.storeBytes(
                of: from.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self), toByteOffset: length - 8,
                as: UInt64.self)
        } else if length < 8, length >= 4 {
            to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
            to.storeBytes(
                of: from.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self), toByteOffset: length - 4,
                as: UInt32.self)
        } else if length < 4 {
            for offset in 0..<length {
                to.storeBytes(
                    of: from.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self)
            }
        } else {
            to.copyMemory(from: from, byteCount: length)
        }
        count += length
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        let length = text.utf8CodeUnitCount
        reserve(length)
        (base + count).update(from: text.utf8Start, count: length)
        count += length
    }

    /// The UTF-8 of a character (nothing for a surrogate or a value past U+10FFFF).
    @inline(__always)
    mutating func appendUTF8(_ value: UInt32) {
        reserve(4)
        let at = base + count
        switch value {
        case ..<0x80:
            at[0] = UInt8(value)
            count += 1
        case ..<0x800:
            at[0] = 0xC0 | UInt8(value >> 6)
            at[1] = 0x80 | UInt8(value & 0x3F)
            count += 2
        case 0xD800...0xDFFF:
            return
        case ..<0x10000:
            at[0] = 0xE0 | UInt8(value >> 12)
            at[1] = 0x80 | UInt8(value >> 6 & 0x3F)
            at[2] = 0x80 | UInt8(value & 0x3F)
            count += 3
        case ...0x10FFFF:
            at[0] = 0xF0 | UInt8(value >> 18)
            at[1] = 0x80 | UInt8(value >> 12 & 0x3F)
            at[2] = 0x80 | UInt8(value >> 6 & 0x3F)
            at[3] = 0x80 | UInt8(value & 0x3F)
            count += 4
        default:
            return
        }
    }

    /// Four bytes, little-endian (a direct tag's length or count).
    @inline(__always)
    mutating func appendWord32(_ value: UInt32) {
        reserve(4)
        UnsafeMutableRawPointer(base + count).storeBytes(of: value.littleEndian, as: UInt32.self)
        count += 4
    }

    /// Eight bytes, little-endian.
    @inline(__always)
    mutating func appendWord64(_ value: UInt64) {
        reserve(8)
        UnsafeMutableRawPointer(base + count).storeBytes(of: value.littleEndian, as: UInt64.self)
        count += 8
    }

    /// Writes four bytes, little-endian, at `offset` (a count known once what it counts is written).
    @inline(__always)
    mutating func patchWord32(_ value: UInt32, at offset: Int) {
        UnsafeMutableRawPointer(base + offset).storeBytes(of: value.littleEndian, as: UInt32.self)
    }

    /// A tag, the length of `length` bytes of `source` from `start`, and those bytes.
    @inline(__always)
    mutating func appendTagged(_ tag: ValueTag, _ source: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) {
        append(tag.rawValue)
        appendWord32(UInt32(length))
        append(source, start, length)
    }

    /// Decimal digits of a magnitude, with a `-` first when `negative`.
    mutating func appendInteger(_ magnitude: UInt64, negative: Bool) {
        reserve(21)
        if negative {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var value = magnitude
        var position = count + digits - 1
        repeat {
            base[position] = UInt8(truncatingIfNeeded: value % 10) &+ 48
            value /= 10
            position -= 1
        } while value > 0
        count += digits
    }
}

/// A growable run of node indexes (the values of fan-outs), reused record after record: a
/// fan-out costs no allocation once it has grown. Its owner frees it (`free()`).
struct FanOutNodes {
    private(set) var base: UnsafeMutablePointer<Int32>
    private(set) var count = 0
    private var capacity = 64

    init() {
        base = .allocate(capacity: capacity)
    }

    func free() { base.deallocate() }

    mutating func removeAll() { count = 0 }

    @inline(__always)
    mutating func append(_ node: Int32) {
        if count == capacity {
            let newBase = UnsafeMutablePointer<Int32>.allocate(capacity: capacity * 2)
            newBase.update(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity *= 2
        }
        base[count] = node
        count += 1
    }

    subscript(position: Int) -> Int32 { base[position] }
}
