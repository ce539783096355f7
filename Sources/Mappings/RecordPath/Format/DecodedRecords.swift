/// What a `RecordDecoder` made of the bytes it was given: the records as JSON lines — one JSON
/// object per record, on one line — and the records it rejected, in input order.
///
/// The lines keep the input's numbering, so that a stream's lines, rejects and resume points are
/// the input's: a record takes as many lines as it did in the input (a CSV row with a quoted line
/// feed takes two: its object, then a blank line), and what is no record but took lines (a CSV
/// header, blank lines) takes them as blank lines. A format without lines counts a record a line:
/// line N is record N.
package struct DecodedRecords: Sendable {
    /// The records' JSON lines, each ended by a line feed.
    package private(set) var text: [UInt8] = []
    /// The records rejected, each with where it comes in `text` (a line's start).
    package private(set) var rejects: [(at: Int, reject: FormatReject)] = []
    /// How many lines `text` and the rejects take.
    package private(set) var lines = 0

    package init() {}

    /// Appends one record: `write` appends its JSON object (one line, no line feed) to the text;
    /// the record takes `lines` lines.
    package mutating func record(lines: Int = 1, _ write: (inout [UInt8]) -> Void) {
        write(&text)
        text.append(0x0A)
        for _ in 1..<max(1, lines) { text.append(0x0A) }
        self.lines += max(1, lines)
    }

    /// Appends lines that are no record (a header, blank lines).
    package mutating func skip(lines count: Int) {
        guard count > 0 else { return }
        text.append(contentsOf: repeatElement(0x0A, count: count))
        lines += count
    }

    /// Appends a record the format could not read.
    package mutating func reject(_ reject: FormatReject) {
        rejects.append((text.count, reject))
        lines += reject.lines
    }

    /// Whether nothing was appended.
    package var isEmpty: Bool { text.isEmpty && rejects.isEmpty }

    /// Empties it, keeping its storage.
    package mutating func removeAll() {
        text.removeAll(keepingCapacity: true)
        rejects.removeAll(keepingCapacity: true)
        lines = 0
    }
}
