public import MappingsJSON
import MappingsModel

/// One problem found while loading `.mappings` files: what, where, and what to do about it.
///
/// Rendered by `DiagnosticRenderer`:
/// ```
/// error: unknown keyword "@optinal"
///  --> contexts/tweets.mappings:12:9
///    |
/// 12 |         "@optinal": true,
///    |         ^^^^^^^^^^
///    = help: did you mean "@optional"?
/// ```
public struct Diagnostic: Sendable, Hashable {
    /// A secondary message, with the place it points at when it has one.
    public struct Note: Sendable, Hashable {
        /// The note, in words.
        public var message: String
        /// What it points at, when it points at something.
        public var location: SourceLocation?

        /// A note, pointing at `location` when given.
        public init(message: String, location: SourceLocation? = nil) {
            self.message = message
            self.location = location
        }
    }

    /// The problem, in words.
    public var message: String
    /// Where the problem is; `nil` for problems outside any file (a path that does not exist).
    public var location: SourceLocation?
    /// Secondary messages, such as where a conflicting declaration is.
    public var notes: [Note]
    /// A suggestion, such as `did you mean "name"?`.
    public var help: String?

    /// A diagnostic; `help` is a suggestion such as `did you mean "name"?`.
    public init(message: String, location: SourceLocation? = nil, notes: [Note] = [], help: String? = nil) {
        self.message = message
        self.location = location
        self.notes = notes
        self.help = help
    }
}
