import Foundation
import MappingsJSON
import MappingsModel

/// The small checks entries share: target paths, key paths, types, classes and flags.
extension ContextCompiler {
    struct ResolvedTarget {
        var path: TargetPath
        var type: TypeReference?
    }

    mutating func targetPath(_ text: String, at location: SourceLocation, model: String?) -> ResolvedTarget? {
        let names = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !names.contains(where: \.isEmpty) else {
            diagnostics.append(
                Diagnostic(
                    message: "the target \"\(text)\" has an empty component", location: location,
                    help: "remove the extra '.'"))
            return nil
        }
        guard let modelName = model, var current = models[modelName] else {
            return ResolvedTarget(
                path: TargetPath(steps: names.map { TargetPath.Step(name: $0, slot: nil) }), type: nil)
        }
        var steps: [TargetPath.Step] = []
        var type: TypeReference?
        for (offset, name) in names.enumerated() {
            guard let slot = current.slot(of: name) else {
                diagnostics.append(
                    Diagnostic(
                        message: "\(current.name) has no property \"\(name)\"", location: location,
                        notes: current.location.map {
                            [Diagnostic.Note(message: "\(current.name) is declared here", location: $0)]
                        } ?? [],
                        help: Suggestion.help(for: name, among: current.properties.map(\.name))))
                return nil
            }
            let property = current.properties[slot]
            steps.append(TargetPath.Step(name: name, slot: slot))
            type = property.type
            if offset < names.count - 1 {
                guard case .model(let next) = property.type.unwrapped, let nextModel = models[next] else {
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "\"\(name)\" of \(current.name) is \(property.type), which has no property \"\(names[offset + 1])\"",
                            location: location))
                    return nil
                }
                current = nextModel
            }
        }
        return ResolvedTarget(path: TargetPath(steps: steps), type: type)
    }

    mutating func keyPath(_ text: String, at location: SourceLocation) -> PayloadKeyPath? {
        do {
            return try PayloadKeyPath.parse(text)
        } catch {
            diagnostics.append(Diagnostic(message: error.message, location: location, help: error.help))
            return nil
        }
    }

    mutating func typeReference(_ node: SyntaxNode) -> TypeReference? {
        guard let text = node.stringValue else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@type\" takes a type name, not \(node.typeName)", location: node.location,
                    help: "write \"@type\": \"Date\""))
            return nil
        }
        do {
            let type = try TypeParser.parse(text).resolvingEnumerations(enumerations)
            for name in type.modelNames where models[name] == nil {
                if declarationsIncomplete { return nil }
                diagnostics.append(
                    Diagnostic(
                        message: "unknown type \"\(name)\"", location: node.location,
                        help: Suggestion.help(for: name, among: Array(TypeReference.scalars.keys) + Array(models.keys)))
                )
                return nil
            }
            if let problem = type.setProblem {
                diagnostics.append(Diagnostic(message: "in \"@type\": \(problem)", location: node.location))
                return nil
            }
            return type
        } catch {
            var at = node.location
            at.column += 1 + error.offset
            at.length = error.length
            diagnostics.append(Diagnostic(message: "in \"@type\": \(error.message)", location: at, help: error.help))
            return nil
        }
    }

    /// The model a `@class` value names; reports and returns `nil` when it names none.
    mutating func className(_ node: SyntaxNode) -> String? {
        guard let name = node.stringValue else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@class\" takes a model name, not \(node.typeName)", location: node.location))
            return nil
        }
        guard models[name] != nil else {
            if declarationsIncomplete { return nil }
            diagnostics.append(
                Diagnostic(
                    message: "unknown class \"\(name)\"", location: node.location,
                    help: Suggestion.help(for: name, among: models.keys)
                        ?? "declare it under \"@models\", such as \"\(name)\": { \"name\": \"String\" }; "
                        + "from a Swift host, register the type bound to it: definitions.register(T.self), "
                        + "T declared @MappedModel(\"\(name)\")"))
            return nil
        }
        return name
    }

    /// The `@class` a context body declares itself (directly or through its `@object`), if any.
    func declaredClass(_ node: SyntaxNode) -> String? {
        if let name = node.member("@class")?.value.stringValue, models[name] != nil { return name }
        if let name = node.member("@object")?.value.member("@class")?.value.stringValue, models[name] != nil {
            return name
        }
        return nil
    }

    mutating func boolean(_ member: SyntaxMember) -> Bool? {
        switch member.value.kind {
        case .bool(let value): return value
        case .number("0"): return false
        case .number("1"): return true
        default:
            // A boolean written as a word in quotes: say which literal it means.
            let meant: String? =
                switch member.value.stringValue?.lowercased() {
                case "true", "yes", "on", "1": "true"
                case "false", "no", "off", "0": "false"
                default: nil
                }
            diagnostics.append(
                Diagnostic(
                    message: "\"\(member.key)\" takes true or false, not \(member.value.typeName)",
                    location: member.value.location,
                    help: meant.map { "did you mean \($0), without quotes?" }
                        ?? "write \"\(member.key)\": true or \"\(member.key)\": false"))
            return nil
        }
    }

    mutating func nonEmptyString(_ member: SyntaxMember) -> String? {
        guard let value = member.value.stringValue, !value.isEmpty else {
            diagnostics.append(
                Diagnostic(
                    message: "\"\(member.key)\" takes a non-empty string, not \(member.value.typeName)",
                    location: member.value.location))
            return nil
        }
        return value
    }

    func unknownKeyword(_ member: SyntaxMember, in place: String, allowed: [String]) -> Diagnostic {
        if let help = Suggestion.help(for: member.key, among: allowed + Selector.keywords) {
            return Diagnostic(
                message: "unknown keyword \"\(member.key)\" in \(place)", location: member.keyLocation, help: help)
        }
        if Keywords.all.contains(member.key) {
            return Diagnostic(
                message: "\"\(member.key)\" has no meaning in \(place)", location: member.keyLocation,
                help: "here the keywords are " + allowed.map { "\"\($0)\"" }.joined(separator: ", "))
        }
        return Diagnostic(
            message: "unknown keyword \"\(member.key)\" in \(place)", location: member.keyLocation,
            help: Suggestion.help(for: member.key, among: Array(Keywords.all) + Selector.keywords)
                ?? "here the keywords are " + allowed.map { "\"\($0)\"" }.joined(separator: ", "))
    }

    func provenance(_ location: SourceLocation, _ node: SyntaxNode) -> Provenance {
        Provenance(location: location, inheritedVia: node.inheritedVia, importedVia: importChains[location.file] ?? [])
    }

    /// The options of an `@object` (context level or entry level); reports and returns `nil`
    /// when it is not an object.
    mutating func objectOptions(_ member: SyntaxMember) -> [SyntaxMember]? {
        guard let options = member.value.members else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"@object\" takes an object with \"@class\" and \"@mappings\", not \(member.value.typeName)",
                    location: member.value.location))
            return nil
        }
        return options
    }

    /// Reports a `@mappings` that is neither a context reference nor an inline context.
    mutating func reportMappingsShape(_ member: SyntaxMember) {
        diagnostics.append(
            Diagnostic(
                message: "\"@mappings\" takes a context identifier or an inline context, not \(member.value.typeName)",
                location: member.value.location))
    }
}
