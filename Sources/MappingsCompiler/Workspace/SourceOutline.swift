package import MappingsJSON
import MappingsModel

/// What an editor needs to know of one `.mappings` file, read from its syntax alone: the
/// contexts and models it declares, the names it refers to and where, and its symbols.
///
/// Built for `mappings lsp`: it never fails (a file that does not parse has an empty outline
/// and the parser's diagnostics), and it does not need the other files, so an editor gets
/// symbols and places while the workspace as a whole does not load.
package struct SourceOutline: Sendable {
    /// A context the file declares.
    package struct Context: Sendable {
        package var name: String
        /// The key that declares it.
        package var location: SourceLocation
        /// Its `@class`, when it names one.
        package var className: String?
        /// Its entries' property names, in order (selector blocks included).
        package var entries: [String]
        /// The `input` payloads of its `@tests`.
        package var testInputs: [JSONValue]
    }

    /// A model or an enum the file declares in `@models`.
    package struct Model: Sendable {
        package var name: String
        package var location: SourceLocation
        /// Its properties, with their types as written; empty for an enum.
        package var properties: [(name: String, type: String, location: SourceLocation)]
        /// The values of an enum; `nil` for a model.
        package var enumValues: [String]?
    }

    /// What a name stands for.
    package enum NameKind: Sendable, Hashable {
        /// A context identifier: `$User`, or `$Templates.user` (a member of a context).
        case context
        /// A model or enum name.
        case model
        /// An `@import`ed file, as written.
        case file
        /// A script, by module name (`@transformClass`).
        case script
        /// A function of a script (`@transformSelector`, up to its first `:`).
        case function(script: String)
    }

    /// One place a name is written: its declaration or a reference to it.
    package struct Occurrence: Sendable {
        package var kind: NameKind
        /// The name as written.
        package var name: String
        /// The name itself, inside the quotes.
        package var location: SourceLocation
        package var isDeclaration: Bool
    }

    /// A symbol for an editor's outline.
    package struct Symbol: Sendable {
        package enum Kind: Sendable { case context, model, enumeration, property, entry, selector }
        package var name: String
        package var kind: Kind
        /// What to show beside the name: a context's class, a property's type, an entry's key path.
        package var detail: String?
        /// The key that names it.
        package var selection: SourceLocation
        /// The last place its value covers (same file).
        package var end: SourceLocation
        package var children: [Symbol]
    }

    package let file: String
    /// The parser's diagnostics (a syntax error, duplicate keys).
    package private(set) var diagnostics: [Diagnostic] = []
    package private(set) var contexts: [Context] = []
    package private(set) var models: [Model] = []
    package private(set) var occurrences: [Occurrence] = []
    package private(set) var symbols: [Symbol] = []
    /// Whether the text parsed.
    package private(set) var parsed = false

    /// The outline of `text`, the contents of `file`.
    package init(text: String, file: String) {
        self.file = file
        var parser = SyntaxParser(text: text, file: file)
        let root = parser.parse()
        diagnostics = parser.diagnostics
        guard let root, let members = root.members else { return }
        parsed = true
        symbols = topLevel(members)
    }

    // MARK: Walking the tree

    private mutating func topLevel(_ members: [SyntaxMember]) -> [Symbol] {
        var symbols: [Symbol] = []
        for member in members {
            switch member.key {
            case "@import":
                for string in strings(in: member.value) {
                    reference(.file, string.node, name: string.value)
                }
            case "@models":
                for model in member.value.members ?? [] {
                    symbols.append(declareModel(model))
                }
            case _ where Selector.isSelectorKey(member.key):
                let children = member.value.members.map { topLevel($0) } ?? []
                symbols.append(selectorSymbol(member, children: children))
            case _ where member.key.hasPrefix("@"):
                continue
            default:
                symbols.append(declareContext(member))
            }
        }
        return symbols
    }

    private mutating func declareModel(_ member: SyntaxMember) -> Symbol {
        occurrences.append(
            Occurrence(kind: .model, name: member.key, location: inside(member.keyLocation), isDeclaration: true))
        var model = Model(name: member.key, location: member.keyLocation, properties: [], enumValues: nil)
        var children: [Symbol] = []
        if case .array(let values) = member.value.kind {
            model.enumValues = values.compactMap(\.stringValue)
        }
        for property in member.value.members ?? [] {
            guard let type = property.value.stringValue else { continue }
            model.properties.append((property.key, type, property.keyLocation))
            typeNames(in: property.value)
            children.append(
                Symbol(
                    name: property.key, kind: .property, detail: type, selection: property.keyLocation,
                    end: Self.end(of: property.value), children: []))
        }
        models.append(model)
        return Symbol(
            name: member.key, kind: model.enumValues == nil ? .model : .enumeration,
            detail: model.enumValues.map { $0.joined(separator: " | ") }, selection: member.keyLocation,
            end: Self.end(of: member.value), children: children)
    }

    private mutating func declareContext(_ member: SyntaxMember) -> Symbol {
        occurrences.append(
            Occurrence(kind: .context, name: member.key, location: inside(member.keyLocation), isDeclaration: true))
        var context = Context(
            name: member.key, location: member.keyLocation, className: nil, entries: [], testInputs: [])
        let children = member.value.members.map { self.context($0, into: &context) } ?? []
        contexts.append(context)
        return Symbol(
            name: member.key, kind: .context, detail: context.className, selection: member.keyLocation,
            end: Self.end(of: member.value), children: children)
    }

    /// The members of a context (or of a selector block inside one); `context` collects its class and entries.
    private mutating func context(_ members: [SyntaxMember], into context: inout Context) -> [Symbol] {
        var symbols: [Symbol] = []
        for member in members {
            switch member.key {
            case "@class":
                if let name = member.value.stringValue {
                    context.className = context.className ?? name
                    reference(.model, member.value, name: name)
                }
            case "@inherits":
                contextReferences(in: member.value)
            case "@object":
                objectSpecification(member.value)
            case "@tests":
                guard case .array(let tests) = member.value.kind else { continue }
                context.testInputs += tests.compactMap { $0.member("input")?.value.jsonValue }
            case _ where Selector.isSelectorKey(member.key):
                let children = member.value.members.map { self.context($0, into: &context) } ?? []
                symbols.append(selectorSymbol(member, children: children))
            case _ where member.key.hasPrefix("@"):
                continue
            default:
                context.entries.append(member.key)
                entry(member.value)
                symbols.append(
                    Symbol(
                        name: member.key, kind: .entry, detail: Self.keyPath(of: member.value),
                        selection: member.keyLocation, end: Self.end(of: member.value), children: []))
            }
        }
        return symbols
    }

    private mutating func entry(_ value: SyntaxNode) {
        guard let members = value.members else { return }
        let script = members.first(where: { $0.key == "@transformClass" })?.value.stringValue
        for member in members {
            switch member.key {
            case "@object": objectSpecification(member.value)
            case "@inherits": contextReferences(in: member.value)
            case "@type": typeNames(in: member.value)
            case "@transformClass":
                if let name = member.value.stringValue { reference(.script, member.value, name: name) }
            case "@transformSelector", "@reverseTransformSelector":
                guard let selector = member.value.stringValue, let script else { continue }
                let name = String(selector.prefix(while: { $0 != ":" }))
                guard !name.isEmpty, let location = inside(member.value, from: 0, length: name.unicodeScalars.count)
                else { continue }
                occurrences.append(
                    Occurrence(kind: .function(script: script), name: name, location: location, isDeclaration: false))
            case _ where Selector.isSelectorKey(member.key):
                entry(member.value)
            default:
                continue
            }
        }
    }

    /// An `@object`: a context reference, an inline context, or a union's cases.
    private mutating func objectSpecification(_ value: SyntaxNode) {
        if let name = value.stringValue {
            reference(.context, value, name: name)
            return
        }
        for member in value.members ?? [] {
            switch member.key {
            case "@mappings":
                if let name = member.value.stringValue {
                    reference(.context, member.value, name: name)
                } else if let members = member.value.members {
                    var inline = Context(
                        name: "", location: member.keyLocation, className: nil, entries: [], testInputs: [])
                    _ = context(members, into: &inline)
                }
            case "@class":
                if let name = member.value.stringValue { reference(.model, member.value, name: name) }
            case "@inherits":
                contextReferences(in: member.value)
            case "@otherwise":
                objectSpecification(member.value)
            case "@cases":
                for item in member.value.members ?? [] { objectSpecification(item.value) }
            case _ where Selector.isSelectorKey(member.key):
                objectSpecification(member.value)
            default:
                continue
            }
        }
    }

    private mutating func contextReferences(in value: SyntaxNode) {
        for string in strings(in: value) { reference(.context, string.node, name: string.value) }
    }

    /// The names a type string uses (`[UserModel]?`, `Circle | Rect`), built-in types left out.
    private mutating func typeNames(in value: SyntaxNode) {
        guard let type = value.stringValue else { return }
        var offset = 0
        var word = ""
        var start = 0
        for scalar in type.unicodeScalars + [" "] {
            if scalar.properties.isAlphabetic || scalar == "_" || (!word.isEmpty && ("0"..."9").contains(scalar)) {
                if word.isEmpty { start = offset }
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                if !Self.builtInTypes.contains(word),
                    let location = inside(value, from: start, length: word.unicodeScalars.count)
                {
                    occurrences.append(Occurrence(kind: .model, name: word, location: location, isDeclaration: false))
                }
                word = ""
            }
            offset += 1
        }
    }

    package static let builtInTypes: Set<String> = [
        "String", "Int", "Double", "Bool", "Decimal", "URL", "Date", "UUID", "JSON",
    ]

    // MARK: Helpers

    private mutating func reference(_ kind: NameKind, _ node: SyntaxNode, name: String) {
        guard let location = inside(node, from: 0, length: name.unicodeScalars.count) else { return }
        occurrences.append(Occurrence(kind: kind, name: name, location: location, isDeclaration: false))
    }

    private func strings(in value: SyntaxNode) -> [(value: String, node: SyntaxNode)] {
        switch value.kind {
        case .string(let string): [(string, value)]
        case .array(let elements): elements.compactMap { node in node.stringValue.map { ($0, node) } }
        default: []
        }
    }

    private func selectorSymbol(_ member: SyntaxMember, children: [Symbol]) -> Symbol {
        Symbol(
            name: member.key, kind: .selector, detail: nil, selection: member.keyLocation,
            end: Self.end(of: member.value), children: children)
    }

    /// The text between a string's quotes.
    private func inside(_ location: SourceLocation) -> SourceLocation {
        SourceLocation(
            file: location.file, line: location.line, column: location.column + 1, length: location.length - 2)
    }

    /// `length` scalars of a string's text from `offset`, when the string is written without
    /// escapes (otherwise its scalars and the columns they take differ).
    private func inside(_ node: SyntaxNode, from offset: Int, length: Int) -> SourceLocation? {
        guard case .string(let string) = node.kind, string.unicodeScalars.count == node.location.length - 2
        else { return nil }
        return SourceLocation(
            file: node.location.file, line: node.location.line, column: node.location.column + 1 + offset,
            length: length)
    }

    /// An entry's key path: the short form's string, or its `@keyPath`.
    private static func keyPath(of value: SyntaxNode) -> String? {
        value.stringValue ?? value.member("@keyPath")?.value.stringValue
    }

    /// The last place inside a value: its last descendant's end.
    static func end(of node: SyntaxNode) -> SourceLocation {
        var last = node.location
        switch node.kind {
        case .object(let members):
            if let member = members.last { last = end(of: member.value) }
        case .array(let elements):
            if let element = elements.last { last = end(of: element) }
        default:
            break
        }
        return last
    }
}
