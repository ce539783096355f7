import Foundation
import MappingsJSON

extension InitSample {
    /// `count` records of the NDJSON file at `path`, spread over it: the line that starts at
    /// or after each of `count` evenly spaced byte offsets, so a sample of a large file reads a
    /// few kilobytes of it, not the whole. `nil` when the file is not NDJSON (its first line is
    /// not an object by itself) or holds no more than `count` lines where they were looked for:
    /// then the whole file is read and spread (`spread(_:)`).
    package static func spread(
        _ count: Int, ofLinesAt path: String
    ) throws(InitFailure) -> InitSample? {
        guard count > 0, let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        guard let size = try? file.seekToEnd(), size > 0 else { return nil }
        var records: [JSONObject] = []
        var starts = Set<UInt64>()
        for index in 0..<UInt64(count) {
            let offset = index * size / UInt64(count)
            guard let (start, line) = nextLine(in: file, from: offset, size: size), starts.insert(start).inserted
            else { continue }
            guard let value = try? JSONParser.parse(line), case .object(let object) = value else {
                if index == 0 { return nil }
                throw InitFailure("the line at byte \(start) of \(path) is not a JSON object: --sample reads NDJSON")
            }
            try refuseDuplicateKeys(in: object, record: "the line at byte \(start) of the sample")
            records.append(object)
        }
        guard records.count == count else { return nil }
        let megabytes = Double(size) / 1_000_000
        let over = megabytes >= 1 ? "a file of \(Int(megabytes.rounded())) MB" : "a file of \(size) bytes"
        return InitSample(records: records, form: .lines, spreadOver: over)
    }

    /// The first whole line starting at or after `offset` (the one at `offset` when it is 0 or
    /// follows a line feed), and where it starts; `nil` at the end of the file.
    private static func nextLine(in file: FileHandle, from offset: UInt64, size: UInt64) -> (UInt64, [UInt8])? {
        var position = offset
        var skipping = offset > 0
        if skipping {
            // The byte before says whether a line starts at `offset`.
            position = offset - 1
        }
        var line: [UInt8] = []
        var start = offset
        while position < size {
            guard (try? file.seek(toOffset: position)) != nil,
                let chunk = try? file.read(upToCount: 1 << 16), !chunk.isEmpty
            else { break }
            for byte in chunk {
                position += 1
                if skipping {
                    if byte == 0x0A {
                        skipping = false
                        start = position
                    }
                    continue
                }
                if byte == 0x0A {
                    if line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) { return (start, line) }
                    line.removeAll(keepingCapacity: true)
                    start = position
                    continue
                }
                line.append(byte)
            }
        }
        return line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) ? (start, line) : nil
    }
}
