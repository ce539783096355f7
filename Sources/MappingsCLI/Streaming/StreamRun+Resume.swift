import Foundation
import Mappings

extension StreamRun {
    /// Where a stream that stopped early starts again: the first record it did not process
    /// (every record before it was written or rejected), as `--stats` and the summary give it
    /// and `--resume-from FILE:LINE` takes it.
    struct Resume: Equatable {
        /// The input as given on the command line; `nil` for standard input (`-`).
        var file: String?
        /// The line, 1-based, counting every line of the input (blank ones too).
        var line: Int
        /// Where that line starts in the input, in bytes; `nil` when a stop came while a resumed
        /// run was still skipping standard input up to it.
        var offset: Int?

        /// `FILE:LINE` for `--resume-from`, quoted for a shell when the name needs it.
        var argument: String {
            let name = file ?? "-"
            let plain = name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || "-_./,+@%".unicodeScalars.contains($0)
            }
            let text = "\(name):\(line)"
            return plain ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }

        var json: JSONValue {
            .object(
                JSONObject([
                    ("file", .string(file ?? "-")), ("line", .integer(Int64(line))),
                    ("offset", offset.map { .integer(Int64($0)) } ?? .null),
                ]))
        }

        /// Reads `FILE:LINE` (the last colon splits them); `nil` when it is not that.
        init?(argument: String) {
            guard let colon = argument.lastIndex(of: ":"), let line = Int(argument[argument.index(after: colon)...]),
                line >= 1, colon > argument.startIndex
            else { return nil }
            let name = String(argument[..<colon])
            self.init(file: name == "-" ? nil : name, line: line, offset: 0)
        }

        init(file: String?, line: Int, offset: Int?) {
            self.file = file
            self.line = line
            self.offset = offset
        }
    }
}
