import MappingsJSON
import MappingsModel

/// The one error type the Mappings API throws.
///
/// `kind` says what failed; `diagnostics` say every problem found, each with its place.
/// `description` renders them all, source lines and carets included.
public struct MappingsError: Error, Sendable, CustomStringConvertible {
    /// What failed. A struct rather than an enum, so that kinds can be added without breaking clients.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// `.mappings` files could not be read, parsed, resolved or compiled.
        public static let invalidMappings = Kind("invalid mappings")
        /// A payload was not valid JSON or not of the shape an operation needs.
        public static let invalidInput = Kind("invalid input")
        /// A name given through the API (a context identifier, say) does not exist.
        public static let unknownName = Kind("unknown name")
        /// A transformer refused a value (thrown by a host's closure; the engine reports it as
        /// an issue for that value).
        public static let transformerFailed = Kind("transformer failed")

        public var description: String { name }
    }

    /// What failed.
    public var kind: Kind
    /// Every problem found, each with its place, notes and help.
    public var diagnostics: [Diagnostic]
    /// Texts of the files the diagnostics point into, so that they can be rendered with their lines.
    public var sources: [String: String]
    /// What a failed load also found that would only have been a warning (`Catalog.warnings`),
    /// so that the tool shows it beside the errors.
    package var warnings: [Diagnostic] = []

    /// An error of `kind`; `sources` holds the texts of the files the diagnostics point into.
    public init(kind: Kind, diagnostics: [Diagnostic], sources: [String: String] = [:]) {
        self.kind = kind
        self.diagnostics = diagnostics
        self.sources = sources
    }

    /// What a transformer throws to refuse a value, with the reason the issue will carry:
    /// ```swift
    /// guard case .string(let text) = value else { throw MappingsError.transformerFailed("expected a string") }
    /// ```
    public static func transformerFailed(_ reason: String) -> MappingsError {
        MappingsError(kind: .transformerFailed, diagnostics: [Diagnostic(message: reason)])
    }

    /// The messages alone, for one line of a report: what a thrown error says inside an issue.
    package var summary: String {
        diagnostics.map(\.message).joined(separator: "; ")
    }

    /// Every diagnostic, rendered.
    public var description: String {
        DiagnosticRenderer(sources: sources).render(diagnostics)
    }
}
