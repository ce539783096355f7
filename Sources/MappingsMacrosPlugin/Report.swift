import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// The diagnostics of one expansion, said through the compiler as they are found; `failed`
/// once any is an error, so that no expansion follows.
struct Report {
    let context: any MacroExpansionContext
    private(set) var failed = false

    init(context: some MacroExpansionContext) {
        self.context = context
    }

    mutating func error(
        _ node: some SyntaxProtocol, _ id: String, _ message: String, notes: [Note] = [], fixIt: FixIt? = nil
    ) {
        failed = true
        context.diagnose(
            Diagnostic(
                node: Syntax(node), message: Message(id: id, message: message),
                notes: notes.map { SwiftDiagnostics.Note(node: $0.node, message: $0) },
                fixIts: fixIt.map { [$0] } ?? []))
    }
}

/// An error of the macros: its text, and an id tests and tools can match.
struct Message: DiagnosticMessage {
    let id: String
    let message: String
    var diagnosticID: MessageID { MessageID(domain: "MappingsMacros", id: id) }
    var severity: DiagnosticSeverity { .error }
}

/// A note that points at a second place, such as the first of two clashing properties.
struct Note: NoteMessage {
    let node: Syntax
    let message: String
    var noteID: MessageID { MessageID(domain: "MappingsMacros", id: "note") }

    init(_ node: some SyntaxProtocol, _ message: String) {
        self.node = Syntax(node)
        self.message = message
    }
}

/// What a fix-it does, as an editor lists it.
struct Fix: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "MappingsMacros", id: "fix") }

    init(_ message: String) {
        self.message = message
    }
}

/// The text of a string literal without interpolation, or `nil` for any other expression.
func plainString(_ expression: ExprSyntax) -> String? {
    guard let literal = expression.as(StringLiteralExprSyntax.self) else { return nil }
    var text = ""
    for segment in literal.segments {
        guard case .stringSegment(let piece) = segment else { return nil }
        text += piece.content.text
    }
    return text
}
