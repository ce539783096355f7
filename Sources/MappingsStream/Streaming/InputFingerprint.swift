import Foundation
package import Mappings

/// What a stopped stream records of an input, so that a resumed run can tell the file it stops
/// at is the one it left: its size, and a checksum of its bytes before the place to resume
/// from (`--stats`'s `inputs` and `resume.digest`).
///
/// The checksum is a 64-bit one of this tool's own (eight bytes a step, four lanes, so that
/// reading the bytes again costs little more than reading them), written as 16 hex digits: it
/// tells a file that changed from one that did not, and is no cryptographic digest.
package struct InputFingerprint {
    /// The bytes before `offset` of an input: their checksum, and the line breaks among them.
    package struct Prefix: Equatable {
        package var offset: Int
        package var digest: String
        var lineBreaks: Int
        /// The checksum's state after those bytes: what a run reading on from `offset` goes on
        /// hashing from.
        package var hasher = Hasher64()

        package static func == (left: Prefix, right: Prefix) -> Bool {
            (left.offset, left.digest, left.lineBreaks) == (right.offset, right.digest, right.lineBreaks)
        }
    }

    /// Where line `line` (from 1) of the input starts, with the checksum of the bytes before it;
    /// or, when the input has fewer lines, how many it has.
    package enum LineStart: Equatable {
        case found(Prefix)
        case pastEnd(lines: Int)
    }

    private static let chunk = 1 << 20

    /// Reads `descriptor` from its start (with `pread`, leaving its position as it was) up to
    /// the start of line `line`. A line starts after the break ending the one before it, so the
    /// line just after a last break (the end of the file) still starts: where a run that read a
    /// file to its last break but not to its end resumes.
    package static func lineStart(_ line: Int, of descriptor: Int32) throws(InputFile.Failure) -> LineStart {
        let wanted = line - 1
        var hasher = Hasher64()
        var breaks = 0
        var offset = 0
        var last: UInt8 = 0x0A
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 8)
        defer { buffer.deallocate() }
        while breaks < wanted {
            let count = pread(descriptor, buffer.baseAddress!, chunk, off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw InputFile.Failure(errno: errno)
            }
            if count == 0 { return .pastEnd(lines: breaks + (last == 0x0A ? 0 : 1)) }
            var cut = count
            var searched = 0
            while searched < count {
                guard let found = memchr(buffer.baseAddress! + searched, 0x0A, count - searched) else { break }
                let at = buffer.baseAddress!.distance(to: found)
                breaks += 1
                searched = at + 1
                if breaks == wanted {
                    cut = at + 1
                    break
                }
            }
            hasher.add(UnsafeRawBufferPointer(rebasing: buffer[..<cut]))
            last = buffer[cut - 1]
            offset += cut
        }
        return .found(Prefix(offset: offset, digest: hasher.hex, lineBreaks: breaks, hasher: hasher))
    }

    /// The checksum of the first `offset` bytes of `descriptor` (fewer when the file is shorter:
    /// `Prefix.offset` says how many were read).
    package static func prefix(_ offset: Int, of descriptor: Int32) throws(InputFile.Failure) -> Prefix {
        var hasher = Hasher64()
        var read = 0
        var breaks = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 8)
        defer { buffer.deallocate() }
        while read < offset {
            let count = pread(descriptor, buffer.baseAddress!, min(chunk, offset - read), off_t(read))
            if count < 0 {
                if errno == EINTR { continue }
                throw InputFile.Failure(errno: errno)
            }
            if count == 0 { break }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            hasher.add(bytes)
            breaks += bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            read += count
        }
        return Prefix(offset: read, digest: hasher.hex, lineBreaks: breaks, hasher: hasher)
    }

    /// Adds the bytes of `descriptor` from `from` up to `to` to `hasher` (read with `pread`);
    /// returns how many there were (fewer when the file is shorter).
    static func hash(_ hasher: inout Hasher64, of descriptor: Int32, from: Int, to: Int) throws(InputFile.Failure)
        -> Int
    {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(chunk, max(to - from, 1)), alignment: 8)
        defer { buffer.deallocate() }
        var read = from
        while read < to {
            let count = pread(descriptor, buffer.baseAddress!, min(buffer.count, to - read), off_t(read))
            if count < 0 {
                if errno == EINTR { continue }
                throw InputFile.Failure(errno: errno)
            }
            if count == 0 { break }
            hasher.add(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            read += count
        }
        return read - from
    }

    /// The size of the file open at `descriptor`, or `nil` when it is no regular file.
    package static func size(of descriptor: Int32) -> Int? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(status.st_size)
    }
}

/// The checksum of `InputFingerprint`: bytes taken eight at a time into four lanes, each mixed
/// by a multiply and a shift; the lanes, the tail and the length folded together at the end.
/// Fed in pieces of any lengths, it gives what one piece of all the bytes gives.
package struct Hasher64 {
    private var lanes: (UInt64, UInt64, UInt64, UInt64) = (
        0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x85EB_CA77_C2B2_AE63
    )
    private var tail: [UInt8] = []
    private var length: UInt64 = 0

    private static let prime: UInt64 = 0x100_0000_01B3

    @inline(__always)
    private static func mix(_ lane: UInt64, _ word: UInt64) -> UInt64 {
        var value = (lane ^ word) &* 0xFF51_AFD7_ED55_8CCD
        value ^= value >> 29
        return value
    }

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var index = 0
        if !tail.isEmpty {
            while index < bytes.count, tail.count < 32 {
                tail.append(bytes[index])
                index += 1
            }
            guard tail.count == 32 else { return }
            tail.withUnsafeBytes { addBlock($0, at: 0) }
            tail.removeAll(keepingCapacity: true)
        }
        while bytes.count - index >= 32 {
            addBlock(bytes, at: index)
            index += 32
        }
        tail.append(contentsOf: bytes[index...])
    }

    @inline(__always)
    private mutating func addBlock(_ bytes: UnsafeRawBufferPointer, at index: Int) {
        lanes.0 = Self.mix(lanes.0, bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        lanes.1 = Self.mix(lanes.1, bytes.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self))
        lanes.2 = Self.mix(lanes.2, bytes.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self))
        lanes.3 = Self.mix(lanes.3, bytes.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self))
    }

    /// The checksum so far, as 16 lowercase hex digits.
    var hex: String {
        var value = length
        for lane in [lanes.0, lanes.1, lanes.2, lanes.3] { value = Self.mix(value, lane) &* Self.prime }
        for byte in tail { value = (value ^ UInt64(byte)) &* Self.prime }
        value ^= value >> 31
        value = value &* 0xC4CE_B9FE_1A85_EC53
        value ^= value >> 33
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
