import MappingsJSON
import MappingsModel

/// Picks the one declaration of each name across the loaded files.
///
/// Names are global. When several files declare the same name, the declaration of the file
/// that imports (directly or not) every other declaring file overrides them: importing a
/// file and redefining one of its names is a deliberate override. Otherwise nobody can tell
/// which was meant, and the name is reported with every place it is declared.
struct DeclarationTable {
    private(set) var winners: [String: Declaration] = [:]
    /// Names in the order their first declaration was loaded.
    private(set) var names: [String] = []
    private(set) var diagnostics: [Diagnostic] = []

    /// - Parameter what: how messages call the declared things, such as "context" or "model".
    init(_ declarations: [Declaration], what: String, reach: [String: Set<String>]) {
        var groups: [String: [Declaration]] = [:]
        for declaration in declarations {
            if groups[declaration.name] == nil { names.append(declaration.name) }
            groups[declaration.name, default: []].append(declaration)
        }
        for name in names {
            let group = groups[name]!
            if group.count == 1 {
                winners[name] = group[0]
                continue
            }
            let overriding = group.first { candidate in
                group.allSatisfy { $0.file == candidate.file || reach[candidate.file]?.contains($0.file) == true }
            }
            if let overriding {
                winners[name] = overriding
                continue
            }
            diagnostics.append(
                Diagnostic(
                    message:
                        "the \(what) \"\(name)\" is declared in \(group.count) files that do not import each other",
                    location: group[1].nameLocation,
                    notes: group.enumerated().filter { $0.offset != 1 }.map {
                        Diagnostic.Note(message: "also declared here", location: $0.element.nameLocation)
                    },
                    help: "rename one, or @import one file from the other so that the importing file overrides"))
        }
    }
}
