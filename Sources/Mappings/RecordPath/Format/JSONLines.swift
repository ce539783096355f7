/// JSON lines, the one format of records today, and its rules, kept here once for every reader
/// of lines (the tool's `LineReader` and `BlockReader`, a host's `LineBlocks`, the Python
/// module's `LineSession`): a record is a line ended by a line feed (a carriage return before
/// it is dropped); a blank line is no record; a line that holds a line feed (a host's line) is
/// no record but a reject that says so (`RecordOutcome.lineHoldsLineFeed`); a line longer than
/// `maximumLine` is a reject of its own, with its first bytes.
package enum JSONLines {
    /// The longest line a record may be, in bytes (64 MiB).
    package static let maximumLine = 64 << 20
}
