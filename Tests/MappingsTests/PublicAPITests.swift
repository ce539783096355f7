import Foundation
import MappingsTestSupport
import Testing

/// The public API, listed from the sources: one line per public declaration, with its module
/// and the type it belongs to.
///
/// Declarations are read by indentation, which `tools/format` keeps exact: a declaration
/// belongs to the nearest less-indented type or extension above it.
struct PublicAPIListing {
    /// The library modules whose public declarations hosts see, in layer order.
    static let modules = [
        "MappingsJSON", "MappingsModel", "MappingsCompiler", "MappingsEngine", "Mappings", "MappingsLua",
        "MappingsFetch", "MappingsSQL", "MappingsMacros",
    ]

    struct Declaration: Hashable {
        var module: String
        /// The enclosing types, dotted (`Mapper`, `MappingsError.Kind`); empty at top level.
        var parent: String
        var signature: String

        var line: String { "\(module) \(parent.isEmpty ? "" : parent + ": ")\(signature)" }
    }

    var declarations: [Declaration] = []

    init(root: URL) throws {
        for module in Self.modules {
            let folder = root.appendingPathComponent("Sources/\(module)")
            let files =
                FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
                .sorted { $0.path < $1.path } ?? []
            for file in files {
                declarations += try Self.declarations(in: String(contentsOf: file, encoding: .utf8), module: module)
            }
        }
    }

    /// Every line of the listing, sorted.
    var lines: [String] { Set(declarations.map(\.line)).sorted() }

    /// The public types declared at top level, by name.
    var topLevelTypes: [String] {
        declarations.filter { $0.parent.isEmpty }.compactMap { declaration in
            let words = declaration.signature.split(separator: " ")
            guard let kind = words.firstIndex(where: { ["struct", "enum", "class", "protocol"].contains($0) }),
                kind + 1 < words.count
            else { return nil }
            return String(words[kind + 1].prefix(while: { $0.isLetter || $0.isNumber }))
        }.sorted()
    }

    static func declarations(in text: String, module: String) -> [Declaration] {
        let lines = text.components(separatedBy: "\n")
        var scopes: [(indent: Int, name: String)] = []
        var found: [Declaration] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.drop(while: { $0 == " " })
            let indent = line.count - trimmed.count
            index += 1
            // A brace alone on its line opens the body of a declaration whose header wrapped.
            if trimmed.isEmpty || trimmed.hasPrefix("//") || trimmed.hasPrefix("{") { continue }
            while let last = scopes.last, last.indent >= indent { scopes.removeLast() }
            let words = withoutAttributes(String(trimmed))
            if let name = scopeName(words) { scopes.append((indent, name)) }
            guard words.hasPrefix("public ") || isOpenDeclaration(words), !words.hasPrefix("public import ") else {
                continue
            }
            var signature = words
            while index < lines.count {
                let next = lines[index].trimmingCharacters(in: .whitespaces)
                // A result type, an effect or a where clause on the lines after the parameters.
                let continues = ["->", "throws", "rethrows", "async", "where"].contains { next.hasPrefix($0) }
                guard !isComplete(signature) || continues else { break }
                signature += " " + next
                index += 1
            }
            found.append(
                Declaration(
                    module: module,
                    parent: scopes.dropLast(scopeName(words) == nil ? 0 : 1).map(\.name)
                        .joined(separator: "."), signature: normalized(signature)))
        }
        return found
    }

    /// Whether a line that starts with `open` declares something (`open class`, `open func`,
    /// `open override var`): a statement such as `open += 1` on a variable named `open` does not.
    private static func isOpenDeclaration(_ words: String) -> Bool {
        let parts = words.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "open" else { return false }
        let keywords: Set<Substring> = [
            "class", "func", "var", "let", "subscript", "init", "override", "final", "static", "convenience",
            "required", "dynamic", "nonisolated", "mutating", "lazy", "weak", "unowned",
        ]
        return keywords.contains(parts[1])
    }

    /// The line without leading attributes such as `@discardableResult` or `@_exported`.
    private static func withoutAttributes(_ line: String) -> String {
        var rest = Substring(line)
        while rest.hasPrefix("@") {
            guard let space = rest.firstIndex(of: " ") else { break }
            rest = rest[rest.index(after: space)...]
        }
        return String(rest)
    }

    /// The name a type or extension declaration opens, if the line is one.
    private static func scopeName(_ words: String) -> String? {
        let parts = words.split(separator: " ")
        guard
            let kind = parts.firstIndex(where: {
                ["struct", "enum", "class", "protocol", "extension", "actor"].contains($0)
            }), kind + 1 < parts.count,
            parts[..<kind].allSatisfy({
                ["public", "package", "internal", "private", "fileprivate", "final", "indirect", "open"].contains($0)
            })
        else { return nil }
        return String(parts[kind + 1].prefix(while: { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" }))
    }

    /// Whether the brackets of a declaration's text are closed and nothing continues it.
    private static func isComplete(_ text: String) -> Bool {
        var depth = 0
        var angles = 0
        var previous: Character = " "
        for character in text {
            switch character {
            case "(", "[": depth += 1
            case ")", "]": depth -= 1
            // A generic parameter list opens right after a name (`register<T>`); `<<` does not.
            case "<" where previous.isLetter || previous.isNumber: angles += 1
            case ">" where angles > 0 && previous != "-": angles -= 1
            default: break
            }
            previous = character
        }
        let end = text.trimmingCharacters(in: .whitespaces)
        return depth <= 0 && angles == 0 && !end.hasSuffix("->") && !end.hasSuffix(",") && !end.hasSuffix("throws")
    }

    /// The declaration up to its body or initial value, on one line with single spaces.
    private static func normalized(_ text: String) -> String {
        var out = ""
        var depth = 0
        var previous: Character = " "
        for character in text {
            if "([".contains(character) { depth += 1 }
            if ")]".contains(character) { depth -= 1 }
            if depth == 0, character == "{" { break }
            if depth == 0, character == "=", previous == " " { break }
            previous = character
            out.append(character)
        }
        return out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            .replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: " )", with: ")")
    }
}

@Suite("The public API")
struct PublicAPITests {
    static let listingFile = Fixtures.root.appendingPathComponent("docs/public-api.txt")
    static let guide = Fixtures.root.appendingPathComponent("docs/swift.md")

    @Test("every public declaration is in docs/public-api.txt, and nothing else is")
    func listing() throws {
        let listing = try PublicAPIListing(root: Fixtures.root)
        let text = listing.lines.joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["MAPPINGS_RECORD_API"] == "1" {
            try text.write(to: Self.listingFile, atomically: true, encoding: .utf8)
        }
        let recorded = try String(contentsOf: Self.listingFile, encoding: .utf8)
        let recordedLines = Set(recorded.split(separator: "\n").map(String.init))
        let added = listing.lines.filter { !recordedLines.contains($0) }
        let removed = recordedLines.subtracting(listing.lines).sorted()
        #expect(
            added.isEmpty && removed.isEmpty,
            """
            The public API changed without being announced. If the change is meant, record it with
            MAPPINGS_RECORD_API=1 swift test --filter PublicAPITests and review docs/public-api.txt.
            Appeared:\n\(added.joined(separator: "\n"))
            Disappeared:\n\(removed.joined(separator: "\n"))
            """)
    }

    @Test("docs/swift.md lists every public type, and only those")
    func guideListsTypes() throws {
        let listing = try PublicAPIListing(root: Fixtures.root)
        let guide = try String(contentsOf: Self.guide, encoding: .utf8)
        guard let start = guide.range(of: "<!-- public-types -->"), let end = guide.range(of: "<!-- /public-types -->")
        else {
            Issue.record("docs/swift.md has no <!-- public-types --> section")
            return
        }
        let section = guide[start.upperBound..<end.lowerBound]
        let named = section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `"), let close = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<close])
        }.sorted()
        #expect(named == listing.topLevelTypes)
    }

    @Test("the listing reads declarations the way the compiler groups them")
    func scannerReadsNesting() throws {
        let listing = try PublicAPIListing(root: Fixtures.root)
        let lines = Set(listing.lines)
        #expect(lines.contains("MappingsCompiler MappingsError.Kind: public static let invalidMappings"))
        #expect(
            lines.contains(
                "MappingsEngine Mapper: public func context(_ identifier: String) throws(MappingsError) -> CompiledContext"
            ))
        #expect(!lines.contains { $0.contains("PayloadKeyPath") || $0.contains("JSONParser") })
        // A result type on the line after the parameters, and an extension whose header wraps.
        #expect(
            lines.contains {
                $0.hasPrefix("MappingsEngine Mapper: public func map<T: MappedModel>")
                    && $0.hasSuffix("-> [MappingIssue]")
            })
        #expect(lines.contains("MappingsJSON JSONValue: public init(stringLiteral value: String)"))
        #expect(listing.topLevelTypes.contains("Mapper") && !listing.topLevelTypes.contains("Rule"))
    }

    @Test("a statement on a variable named open is no declaration; open ones are")
    func openStatementsAreNotDeclarations() {
        let text = """
            public struct Walker {
                func walk() {
                    var open = 0
                    open += 1
                    open -= 1
                }
            }
            open class Base {
                open func run() {}
                open override var description: String { "" }
            }
            """
        let found = PublicAPIListing.declarations(in: text, module: "M").map(\.signature)
        #expect(found.count == 4)
        #expect(!found.contains { $0.hasPrefix("open +=") || $0.hasPrefix("open -=") })
        #expect(found.contains { $0.hasPrefix("open class Base") } && found.contains { $0.hasPrefix("open func run") })
    }
}
