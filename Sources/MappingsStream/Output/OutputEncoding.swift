import Foundation
package import Mappings

/// `--to-format`: the records a stream writes, encoded in a format other than JSON lines on
/// their way to stdout (`RecordEncoder`), after what the format starts with and before what it
/// ends with. Rejects are not encoded: they stay JSON lines with their issues.
package final class OutputEncoding {
    /// The format's name, for messages (`csv`).
    let format: String
    private var encoder: any RecordEncoder
    /// Why the format could not write a record, when it could not: the stream stops there.
    private(set) var failure: FormatFailure?
    private var bytes: [UInt8] = []

    package init(format: String, _ encoder: any RecordEncoder) {
        self.format = format
        self.encoder = encoder
    }

    /// What the output starts with, written before the first record.
    func start(to output: OutputBuffer) {
        bytes.removeAll(keepingCapacity: true)
        attempt { (encoder, bytes) throws(FormatFailure) in try encoder.start(into: &bytes) }
        output.write(bytes)
    }

    /// Encodes the JSON lines of `text[range]` (each one record's object) and writes them;
    /// false when one could not be encoded (the records before it are written).
    func write(_ text: [UInt8], range: Range<Int>, to output: OutputBuffer) -> Bool {
        bytes.removeAll(keepingCapacity: true)
        RecordBlock.forEachLine(in: text, range: range) { line, _ in
            guard !line.isEmpty else { return true }
            attempt { (encoder, bytes) throws(FormatFailure) in
                try text.withUnsafeBytes { raw in
                    Result { () throws(FormatFailure) in
                        try encoder.encode(UnsafeRawBufferPointer(rebasing: raw[line]), into: &bytes)
                    }
                }.get()
            }
            return failure == nil
        }
        output.write(bytes)
        return failure == nil
    }

    /// What the output ends with, once every record is written.
    func finish(to output: OutputBuffer) {
        guard failure == nil else { return }
        bytes.removeAll(keepingCapacity: true)
        attempt { (encoder, bytes) throws(FormatFailure) in try encoder.finish(into: &bytes) }
        output.write(bytes)
    }

    /// Runs one step of the encoder, appending to `bytes`, keeping its failure.
    private func attempt(_ step: (inout any RecordEncoder, inout [UInt8]) throws(FormatFailure) -> Void) {
        guard failure == nil else { return }
        do throws(FormatFailure) {
            try step(&encoder, &bytes)
        } catch {
            failure = error
        }
    }
}
