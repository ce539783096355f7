/// Where a record of a format is in its input: the byte its encoding starts at, its number
/// (from 1, every record the format found counted, rejected ones too) and, for a format of lines
/// (CSV), the line it starts on.
package struct FormatPosition: Sendable, Equatable {
    /// The byte offset of the record's first byte in the input.
    package var offset: Int
    /// The record's number in the input, from 1 (a CSV header is no record).
    package var record: Int
    /// The 1-based line the record starts on, for a format of lines.
    package var line: Int?

    package init(offset: Int, record: Int, line: Int? = nil) {
        self.offset = offset
        self.record = record
        self.line = line
    }

    /// `line 12 (record 11, byte 340)`, or `record 11 (byte 340)`: how messages name the place.
    package var description: String {
        if let line { return "line \(line) (record \(record), byte \(offset))" }
        return "record \(record) (byte \(offset))"
    }
}

/// A fault a format cannot read past — a container's header that is not one, a CSV header that
/// names a column twice, a frame whose length runs past any sane limit: the input ends there,
/// as an error naming the byte offset (records before it were mapped).
package struct FormatFailure: Error, Sendable, Equatable {
    /// What is wrong, for a person: `"the header names the column \"id\" twice"`.
    package var message: String
    /// Where the fault is in the input, in bytes.
    package var offset: Int
    /// The number of the record it is in (0: before the first record, such as a header).
    package var record: Int

    package init(_ message: String, offset: Int, record: Int = 0) {
        self.message = message
        self.offset = offset
        self.record = record
    }

    /// `byte 340: the header names the column "id" twice`.
    package var description: String { "byte \(offset): \(message)" }
}

/// A record a format could not read (a ragged CSV row, an Avro datum that does not decode): it
/// becomes a reject with the usual shape — its input, an issue of kind `unreadable record` whose
/// message names its place — and reading goes on after it.
package struct FormatReject: Sendable, Equatable {
    /// Why, for a person: `"the row has 3 fields, the header 4"`.
    package var message: String
    package var position: FormatPosition
    /// The record's bytes as the input has them (the reject's `input`), at most `inputLimit`.
    package var input: [UInt8]
    /// How many of the decoder's lines the record takes (`DecodedRecords`): its input lines for
    /// a format of lines, else 1.
    package var lines: Int

    /// The most bytes of a rejected record its reject keeps.
    package static let inputLimit = 4096

    package init(_ message: String, at position: FormatPosition, input: some Collection<UInt8>, lines: Int = 1) {
        self.message = message
        self.position = position
        self.input = Array(input.prefix(Self.inputLimit))
        self.lines = max(1, lines)
    }

    /// The issue's message: what is wrong and where the record starts.
    package var issueMessage: String { "\(message), at \(position.description)" }
}
