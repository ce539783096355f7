import MappingsJSON
import MappingsModel

/// Automatic entries: `"@keyStyle"` maps each property of the context's model that no entry
/// names from the key its style derives, compiled into ordinary rules (nothing changes while
/// mapping) whose provenance is the `@keyStyle` member.
extension ContextCompiler {
    /// The rules `@keyStyle` adds to a context whose entries are `written`; empty after
    /// reporting a style that is not one, or a context without a model.
    mutating func automaticRules(_ member: SyntaxMember, written: [SyntaxMember], model: String?) -> [Rule] {
        guard let style = keyStyle(member) else { return [] }
        guard let model, let definition = models[model] else {
            if !written.contains(where: { $0.key == "@class" }) {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"@keyStyle\" derives entries from the properties of a model, but this context has no \"@class\"",
                        location: member.keyLocation,
                        help: "add \"@class\": \"MyModel\" beside \"@keyStyle\", or remove \"@keyStyle\""))
            }
            return []
        }
        let explicit = Set(
            written.filter { !$0.key.hasPrefix("@") }.map { String($0.key.prefix(while: { $0 != "." })) })
        var rules: [Rule] = []
        for property in definition.properties where !explicit.contains(property.name) {
            let entry = automaticEntry(property, style: style, at: member)
            guard var rule = compileEntry(entry, model: model) else { continue }
            rule.keyStyle = style
            if case .model(let nested) = property.type.elementType {
                rule.object = automaticObject(nested, style: style, at: member)
            }
            rules.append(rule)
        }
        return rules
    }

    /// The style `@keyStyle` names; `nil` after reporting another value.
    private mutating func keyStyle(_ member: SyntaxMember) -> KeyStyle? {
        let names = KeyStyle.allCases.map(\.rawValue)
        guard let text = member.value.stringValue else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@keyStyle\" takes a key style name, not \(member.value.typeName)",
                    location: member.value.location,
                    help: "the key styles are " + names.map { "\"\($0)\"" }.joined(separator: ", ")))
            return nil
        }
        guard let style = KeyStyle(rawValue: text) else {
            diagnostics.append(
                Diagnostic(
                    message: "unknown key style \"\(text)\"", location: member.value.location,
                    help: Suggestion.help(for: text, among: names)
                        ?? "the key styles are " + names.map { "\"\($0)\"" }.joined(separator: ", ")))
            return nil
        }
        return style
    }

    /// The entry `"property": { "@keyPath": "derived_key", "@optional": … }`, written where
    /// `@keyStyle` is (and inherited as it was).
    private func automaticEntry(_ property: Property, style: KeyStyle, at member: SyntaxMember) -> SyntaxMember {
        let at = member.keyLocation
        var options = [
            SyntaxMember(
                key: "@keyPath", keyLocation: at,
                value: SyntaxNode(.string(Self.keyPathText(style.key(for: property.name))), at: at))
        ]
        if case .optional = property.type {
            options.append(SyntaxMember(key: "@optional", keyLocation: at, value: SyntaxNode(.bool(true), at: at)))
        }
        var value = SyntaxNode(.object(options), at: at)
        value.inheritedVia = member.value.inheritedVia
        return SyntaxMember(key: property.name, keyLocation: at, value: value)
    }

    /// How an automatic entry builds `model`: the context `$<model>` when there is one that
    /// builds it (or names no class), else an automatic context of the same style, compiled
    /// once per model and style (a model may hold itself).
    private mutating func automaticObject(_ model: String, style: KeyStyle, at member: SyntaxMember) -> ObjectRule {
        let reference = "$" + model
        if let index = named[reference] {
            switch inheritance.definition(reference).flatMap(declaredClass) {
            case model?: return ObjectRule(model: model, context: index)
            case nil: return ObjectRule(model: model, context: retarget(reference, model: model))
            default: break
            }
        }
        let key = style.rawValue + "\u{0}" + model
        if let done = automaticContexts[key] { return ObjectRule(model: model, context: done) }
        let index = contexts.count
        contexts.append(nil)
        automaticContexts[key] = index
        let at = member.keyLocation
        var styleMember = member
        styleMember.value = SyntaxNode(.string(style.rawValue), at: member.value.location)
        styleMember.value.inheritedVia = member.value.inheritedVia
        let body = SyntaxNode(
            .object([
                SyntaxMember(key: "@class", keyLocation: at, value: SyntaxNode(.string(model), at: at)), styleMember,
            ]),
            at: at)
        contexts[index] = compileBody(body, identifier: nil, index: index, model: model)
        return ObjectRule(model: model, context: index)
    }

    /// `key` as a key path of one key: dots and backslashes escaped, and a key that would read
    /// as an operator or an index made a key.
    static func keyPathText(_ key: String) -> String {
        var text = key.replacing("\\", with: "\\\\").replacing(".", with: "\\.")
        if let first = text.first, first == "@" || first == "-" || first.isNumber { text = "\\" + text }
        return text
    }
}
