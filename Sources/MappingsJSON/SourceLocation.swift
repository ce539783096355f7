/// A place in a `.mappings` file: 1-based line and column, and how many columns it spans.
///
/// Columns count Unicode scalars, so a caret lines up under the character it names.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file's path as the user named it (relative paths stay relative).
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column, counted in Unicode scalars.
    public var column: Int
    /// How many columns the located text covers; at least 1.
    public var length: Int

    /// A place; `length` is at least 1.
    public init(file: String, line: Int, column: Int, length: Int = 1) {
        self.file = file
        self.line = line
        self.column = column
        self.length = max(1, length)
    }

    /// `file:line:column`.
    public var description: String { "\(file):\(line):\(column)" }
}
