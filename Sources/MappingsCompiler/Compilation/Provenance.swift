public import MappingsJSON
import MappingsModel

/// Where a compiled rule came from: the line that declared it, the `@inherits` that copied
/// it into its context, and the `@import`s that loaded its file.
public struct Provenance: Sendable, Hashable, CustomStringConvertible {
    /// Where the rule is written.
    public var location: SourceLocation
    /// The `@inherits` steps that brought it in, nearest first.
    package var inheritedVia: [InheritanceStep]
    /// The `@import`s that loaded the rule's file, nearest first (empty for a file named directly).
    public var importedVia: [SourceLocation]

    package init(location: SourceLocation, inheritedVia: [InheritanceStep] = [], importedVia: [SourceLocation] = []) {
        self.location = location
        self.inheritedVia = inheritedVia
        self.importedVia = importedVia
    }

    /// `file:line`, then `inherited via "$Base" at file:line` and `imported at file:line` steps.
    public var description: String {
        var text = "\(location.file):\(location.line)"
        for step in inheritedVia {
            text += ", inherited via \"\(step.parent)\" at \(step.location.file):\(step.location.line)"
        }
        for site in importedVia {
            text += ", imported at \(site.file):\(site.line)"
        }
        return text
    }
}
