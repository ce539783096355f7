import Foundation
import Mappings

/// `--job`: each position the sink commits carries the identity of the file it is in (device,
/// inode, the checksum of the bytes before it), so that the job started again reads on only
/// from that file, as it was: the checksum grows as the positions move, each byte hashed once.
extension StreamRun {
    /// The file a job reads now, and its checksum so far.
    struct TrackedInput {
        let file: String?
        let descriptor: Int32
        let device: UInt64
        let inode: UInt64
        var hasher: Hasher64
        /// The bytes from the file's start that `hasher` holds.
        var hashed: Int
    }

    /// Starts tracking the file `reader` reads (a job's regular file only), from `start`'s
    /// checked prefix when it has one.
    mutating func track(_ reader: BlockReader, file: String?, from start: Start) {
        tracked = nil
        var status = stat()
        guard sink != nil, resumesByJob, reader.isRegularFile, fstat(reader.descriptor, &status) == 0 else { return }
        var input = TrackedInput(
            file: file, descriptor: reader.descriptor, device: UInt64(status.st_dev), inode: UInt64(status.st_ino),
            hasher: Hasher64(), hashed: 0)
        if let prefix = start.prefix, prefix.offset == start.offset {
            input.hasher = prefix.hasher
            input.hashed = prefix.offset
        }
        tracked = input
    }

    /// `place` with the identity of the tracked file, when it is in it (else as it is).
    mutating func identified(_ place: Resume) -> Resume {
        guard var input = tracked, place.file == input.file, let offset = place.offset else { return place }
        if offset < input.hashed {
            input.hasher = Hasher64()
            input.hashed = 0
        }
        do {
            let read = try InputFingerprint.hash(&input.hasher, of: input.descriptor, from: input.hashed, to: offset)
            // A file cut shorter under the stream: its bytes no longer tell what was read.
            guard input.hashed + read == offset else {
                tracked = nil
                return place
            }
        } catch {
            tracked = nil
            return place
        }
        input.hashed = offset
        tracked = input
        var place = place
        place.digest = input.hasher.hex
        place.identity = InputIdentity(device: input.device, inode: input.inode, digest: input.hasher.hex)
        return place
    }
}
