import MappingsJSON
import MappingsModel

/// Compiles resolved context definitions into `CompiledContext`s, checking every entry
/// against the models: unknown keywords, classes, properties and contexts, and defaults
/// that cannot convert, each reported with a "did you mean" where one is close.
struct ContextCompiler {
    let models: [String: Model]
    /// The enums `@models` declares, which `@type` may name.
    let enumerations: [String: Enumeration]
    let converter: Converter
    var inheritance: InheritanceResolver
    /// Index of each named context in `contexts`.
    let named: [String: Int]
    /// For each file path, the `@import` sites that loaded it, nearest first.
    let importChains: [String: [SourceLocation]]
    var contexts: [CompiledContext?]
    var diagnostics: [Diagnostic] = []
    /// Whether a file did not parse: a model, type or context no declaration has may be one of
    /// its own, so it is not reported, and a context of such a model is not compiled.
    var declarationsIncomplete = false
    /// Definitions compiled again for a model they do not name themselves, by name and model.
    var retargeted: [String: Int] = [:]
    /// The automatic contexts `@keyStyle` compiled for a nested model, by style and model.
    var automaticContexts: [String: Int] = [:]
    /// The files' texts, by path: where inline code's columns are counted.
    var texts: [String: String] = [:]
    /// The lookup tables `@lookup` may name, by name.
    var tables: [String: LookupTable] = [:]
    /// Tables declared but not loaded (reported where they are declared): a `@lookup` naming
    /// one is not reported again.
    var unloadedTables: Set<String> = []
    /// Each file's `@luaPrelude`, by path.
    var preludes: [String: InlineLuaCode] = [:]

    init(
        models: [String: Model], inheritance: InheritanceResolver, named: [String],
        importChains: [String: [SourceLocation]], enumerations: [String: Enumeration] = [:]
    ) {
        self.models = models
        self.enumerations = enumerations
        self.converter = Converter(models: models)
        self.inheritance = inheritance
        self.named = Dictionary(named.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.importChains = importChains
        self.contexts = Array(repeating: nil, count: named.count)
    }

    /// Compiles the named context at `index`.
    mutating func compileNamed(_ name: String, index: Int) {
        guard let node = inheritance.definition(name) else { return }
        contexts[index] = compileBody(node, identifier: name, index: index, model: nil)
    }

    // MARK: Contexts

    mutating func compileBody(
        _ node: SyntaxNode, identifier: String?, index: Int, model forcedModel: String?
    ) -> CompiledContext {
        let provenance = self.provenance(node.location, node)
        guard let members = node.members else {
            diagnostics.append(
                Diagnostic(
                    message: "a context is an object of entries, not \(node.typeName)", location: node.location,
                    help: "write { \"@class\": \"MyModel\", \"property\": \"source.key.path\" }"))
            return CompiledContext(
                identifier: identifier, index: index, model: forcedModel, rules: [], provenance: provenance)
        }
        if let object = members.first(where: { $0.key == "@object" }) {
            return compileObjectForm(
                object, members: members, identifier: identifier, index: index,
                forcedModel: forcedModel, provenance: provenance)
        }
        var model = forcedModel
        if declarationsIncomplete, let name = members.first(where: { $0.key == "@class" })?.value.stringValue,
            models[name] == nil
        {
            // Its entries would be checked without their types: nothing said of them would hold.
            return CompiledContext(
                identifier: identifier, index: index, model: forcedModel, rules: [], provenance: provenance)
        }
        if let classMember = members.first(where: { $0.key == "@class" }) {
            if let declared = className(classMember.value), forcedModel == nil || declared == forcedModel {
                model = declared
            } else if let declared = classMember.value.stringValue, let forcedModel, declared != forcedModel {
                diagnostics.append(
                    Diagnostic(
                        message: "this context builds \"\(declared)\", but it is used to build \"\(forcedModel)\"",
                        location: classMember.value.location))
            }
        }
        var rules: [Rule] = []
        var tests: [ContextTest] = []
        var keyStyle: SyntaxMember?
        var unknownKeys: UnknownKeys?
        var strictConversions: Bool?
        var filter: (reference: TransformerReference, provenance: Provenance)?
        var identity: IdentityRule?
        for member in members where member.key != "@class" {
            if member.key == "@keyStyle" {
                keyStyle = member
                continue
            }
            if member.key == "@tests", identifier != nil {
                tests += compileTests(member)
                continue
            }
            if member.key == "@unknownKeys" {
                unknownKeys = compileUnknownKeys(member)
                continue
            }
            if member.key == "@conversions" {
                strictConversions = compileConversions(member)
                continue
            }
            if member.key == "@identity" {
                identity = contextIdentity(member, model: model)
                continue
            }
            if member.key == "@filter" {
                if let code = inlineLua(member) {
                    filter = (
                        TransformerReference(inline: code, userData: nil),
                        self.provenance(member.keyLocation, member.value)
                    )
                }
                continue
            }
            if member.key.hasPrefix("@") {
                diagnostics.append(unknownKeyword(member, in: "a context", allowed: Keywords.context))
                continue
            }
            if let rule = compileEntry(member, model: model) { rules.append(rule) }
        }
        if let keyStyle { rules += automaticRules(keyStyle, written: members, model: model) }
        var compiled = CompiledContext(
            identifier: identifier, index: index, model: model, rules: rules, provenance: provenance, tests: tests)
        compiled.unknownKeys = unknownKeys
        compiled.strictConversions = strictConversions
        compiled.filter = filter?.reference
        compiled.filterProvenance = filter?.provenance
        compiled.identity = identity
        return compiled
    }

    /// `"@conversions": "strict" | "lenient"`: `true` for strict; `nil` for a value it reports.
    private mutating func compileConversions(_ member: SyntaxMember) -> Bool? {
        let words = ["strict", "lenient"]
        guard let text = member.value.stringValue, words.contains(text) else {
            let found = member.value.stringValue.map { "\"\($0)\"" } ?? member.value.typeName
            diagnostics.append(
                Diagnostic(
                    message: "\"@conversions\" is \"strict\" or \"lenient\", not \(found)",
                    location: member.value.location,
                    help: member.value.stringValue.flatMap { Suggestion.help(for: $0, among: words) }
                        ?? "\"strict\" converts a value only from its own JSON kind; \"lenient\" (the default) as the conversion table says"
                ))
            return nil
        }
        return text == "strict"
    }

    /// `"@unknownKeys": "ignore" | "warn" | "error"`; `nil` for `ignore`, and for a value it
    /// reports.
    private mutating func compileUnknownKeys(_ member: SyntaxMember) -> UnknownKeys? {
        guard let text = member.value.stringValue, UnknownKeys.policies.contains(text) else {
            let found = member.value.stringValue.map { "\"\($0)\"" } ?? member.value.typeName
            diagnostics.append(
                Diagnostic(
                    message: "\"@unknownKeys\" is \"ignore\", \"warn\" or \"error\", not \(found)",
                    location: member.value.location,
                    help: member.value.stringValue.flatMap { Suggestion.help(for: $0, among: UnknownKeys.policies) }))
            return nil
        }
        guard text != "ignore" else { return nil }
        return UnknownKeys(isError: text == "error", provenance: provenance(member.keyLocation, member.value))
    }

    /// `{ "@object": { "@class": …, "@mappings": … } }` at the top of a context.
    private mutating func compileObjectForm(
        _ object: SyntaxMember, members: [SyntaxMember], identifier: String?, index: Int, forcedModel: String?,
        provenance: Provenance
    ) -> CompiledContext {
        var tests: [ContextTest] = []
        for member in members where member.key == "@tests" && identifier != nil {
            tests += compileTests(member)
        }
        for member in members where member.key != "@object" && !(member.key == "@tests" && identifier != nil) {
            diagnostics.append(
                Diagnostic(
                    message: "a context written with \"@object\" holds nothing else, but it also has \"\(member.key)\"",
                    location: member.keyLocation, help: "move the entries into \"@object\": { \"@mappings\": { … } }"))
        }
        guard let options = objectOptions(object) else {
            return CompiledContext(
                identifier: identifier, index: index, model: forcedModel, rules: [], provenance: provenance)
        }
        var model = forcedModel
        var body: SyntaxNode?
        var referencedBody: SyntaxNode?
        for member in options {
            switch member.key {
            case "@class": model = className(member.value) ?? model
            case "@mappings":
                if let reference = member.value.stringValue {
                    body = inheritance.lookup(reference, at: member.value.location, purpose: "\"@mappings\"")
                    referencedBody = body  // its "@tests" belong to the context it names
                } else if case .object = member.value.kind {
                    body = member.value
                } else {
                    reportMappingsShape(member)
                }
            default:
                diagnostics.append(unknownKeyword(member, in: "\"@object\"", allowed: Keywords.object))
            }
        }
        guard let body else {
            return CompiledContext(
                identifier: identifier, index: index, model: model, rules: [], provenance: provenance)
        }
        let compiled = compileBody(body, identifier: identifier, index: index, model: model ?? declaredClass(body))
        var context = CompiledContext(
            identifier: identifier, index: index, model: compiled.model, rules: compiled.rules,
            provenance: provenance, tests: tests + (body.location == referencedBody?.location ? [] : compiled.tests))
        context.unknownKeys = compiled.unknownKeys
        context.strictConversions = compiled.strictConversions
        context.filter = compiled.filter
        context.filterProvenance = compiled.filterProvenance
        return context
    }
}
