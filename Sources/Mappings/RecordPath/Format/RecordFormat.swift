import Foundation

/// A format of records a stream or `map` reads or writes: JSON lines (the mapper's own), or a
/// format whose records are transcoded to and from JSON objects on the way (`RecordDecoder`,
/// `RecordEncoder`). Chosen by `--from-format`/`--to-format`, else by an input file's extension,
/// then by its first bytes (`detect(path:head:)`).
package enum RecordFormat: String, CaseIterable, Sendable {
    case json
    case csv
    case avro
    case protobuf

    /// The format an input file's name says (`.csv`; `.avro`; `.pb`, `.binpb`, `.protobuf`),
    /// else its first bytes (an Avro object container file's `Obj\u{1}`); `nil`: JSON lines.
    /// - Parameters:
    ///   - path: the input as given (`nil`: standard input, which is JSON lines unless told).
    ///   - head: the file's first bytes, when it was read (four are enough).
    package static func detect(path: String?, head: [UInt8]) -> RecordFormat? {
        guard let path else { return nil }
        switch (path as NSString).pathExtension.lowercased() {
        case "csv": return .csv
        case "avro": return .avro
        case "pb", "binpb", "protobuf": return .protobuf
        case "json", "jsonl", "ndjson": return .json
        default: break
        }
        if head.starts(with: Self.avroMagic) { return .avro }
        return nil
    }

    /// The first four bytes of an Avro object container file.
    package static let avroMagic: [UInt8] = [0x4F, 0x62, 0x6A, 0x01]

    /// Whether records of this format are JSON lines as read (no decoder, no encoder).
    package var isJSONLines: Bool { self == .json }
}
