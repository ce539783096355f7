import Foundation
import Mappings
import MappingsJSON
import MappingsLua

/// Hover and completion: what the name under the cursor is, and what may be written there.
extension LanguageServer {
    /// A string written on the cursor's line around the cursor: its text, the column of its
    /// opening quote, its length with the quotes, and whether a `:` follows it (a key).
    struct Token {
        let value: String
        let column: Int
        let length: Int
        let isKey: Bool
    }

    func token(at cursor: Cursor) -> Token? {
        guard let text = text(of: cursor.path) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard cursor.line >= 1, cursor.line <= lines.count else { return nil }
        let scalars = Array(lines[cursor.line - 1].unicodeScalars)
        var index = 0
        while index < scalars.count {
            if scalars[index] == "/", index + 1 < scalars.count, scalars[index + 1] == "/" { return nil }
            guard scalars[index] == "\"" else {
                index += 1
                continue
            }
            let start = index
            var value = ""
            index += 1
            while index < scalars.count, scalars[index] != "\"" {
                if scalars[index] == "\\", index + 1 < scalars.count { index += 1 }
                value.unicodeScalars.append(scalars[index])
                index += 1
            }
            let end = min(index, scalars.count - 1)
            if cursor.column - 1 >= start, cursor.column - 1 <= end {
                let rest = scalars[min(end + 1, scalars.count)...].drop(while: { $0 == " " || $0 == "\t" })
                return Token(value: value, column: start + 1, length: end - start + 1, isKey: rest.first == ":")
            }
            index += 1
        }
        return nil
    }

    /// The keys enclosing a place with selector blocks left out: `["$Tweet", "user", "@object"]`.
    func logicalPath(_ place: CursorPlace) -> [String] {
        place.path.filter { !Self.isSelector($0) && $0 != "[]" }
    }

    static func isSelector(_ key: String) -> Bool {
        KeywordHelp.entry(key)?.section == "Selectors"
    }

    /// The model a context builds, from the workspace's outlines.
    func model(ofContext name: String) -> SourceOutline.Model? {
        guard let className = contextDeclarations(name).first?.className else { return nil }
        return modelDeclarations(className).first
    }

    // MARK: Hover

    func hover(_ params: JSONValue) -> JSONValue {
        guard let cursor = cursor(params), let markdown = hoverText(at: cursor) else { return .null }
        return ["contents": ["kind": "markdown", "value": .string(markdown)]]
    }

    private func hoverText(at cursor: Cursor) -> String? {
        if let occurrence = occurrence(at: cursor) { return describe(occurrence) }
        guard let token = token(at: cursor), let text = text(of: cursor.path) else { return nil }
        if token.value.hasPrefix("@"), let help = KeywordHelp.markdown(token.value) { return help }
        let place = CursorPlace(text: text, line: cursor.line, column: token.column)
        let path = logicalPath(place)
        if token.isKey, path.count == 1, !path[0].hasPrefix("@") {
            guard let model = model(ofContext: path[0]) else {
                return "**`\(token.value)`** — an entry of `\(path[0])`"
            }
            guard let property = model.properties.first(where: { $0.name == token.value }) else {
                return "**`\(token.value)`** — `\(model.name)` has no such property"
            }
            return "```\n\(model.name).\(property.name): \(property.type)\n```\nThe property this entry maps."
        }
        if !token.isKey, let key = place.key, key.hasPrefix("@"), let help = KeywordHelp.markdown(key) {
            return help
        }
        return nil
    }

    private func describe(_ occurrence: SourceOutline.Occurrence) -> String? {
        let name = referent(of: occurrence)
        switch occurrence.kind {
        case .context:
            guard let context = contextDeclarations(name).first else {
                return "**`\(name)`** — no context of the workspace has this name"
            }
            let uses = places(of: occurrence, declarations: false)
            let files = Set(uses.map(\.file)).count
            var text = "**context `\(name)`**"
            if let className = context.className { text += " → `\(className)`" }
            text += "\n\nDeclared at \(relative(context.location.file)):\(context.location.line)"
            text += "; used \(uses.count) time\(uses.count == 1 ? "" : "s")"
            if files > 0 { text += " in \(files) file\(files == 1 ? "" : "s")" }
            if !context.entries.isEmpty {
                text += "\n\nEntries: " + context.entries.map { "`\($0)`" }.joined(separator: ", ")
            }
            return text
        case .model:
            guard let model = modelDeclarations(name).first else {
                return "**`\(name)`** — no model of the workspace has this name"
            }
            if let values = model.enumValues {
                return "**enum `\(name)`**\n\n" + values.map { "`\"\($0)\"`" }.joined(separator: ", ")
            }
            let lines = model.properties.map { "    \($0.name): \($0.type)" }
            return "```\nmodel \(name) {\n" + lines.joined(separator: "\n") + "\n}\n```\nDeclared at "
                + "\(relative(model.location.file)):\(model.location.line)"
        case .file:
            return "Imports `\(relative(importedPath(name, from: occurrence.location.file)))`"
        case .script:
            let path = scriptPath(name)
            guard let text = text(of: path) else { return "**`\(name)`** — there is no \(relative(path))" }
            let names = LuaOutline(text: text).functions.map { "`\($0.name)`" }
            return "**script** `\(relative(path))`\n\nFunctions: " + names.joined(separator: ", ")
        case .function(let script):
            let path = scriptPath(script)
            guard let text = text(of: path),
                let function = LuaOutline(text: text).functions.first(where: { $0.name == name })
            else { return "**`\(name)`** — \(relative(path)) defines no function of this name" }
            var markdown = "```lua\nfunction \(script).\(name)(\(function.parameters))\n```"
            if !function.documentation.isEmpty { markdown += "\n" + function.documentation }
            return markdown + "\n\n\(relative(path)):\(function.line)"
        }
    }

    /// A path as the workspace names it.
    func relative(_ path: String) -> String {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    // MARK: Completion

    func completion(_ params: JSONValue) -> JSONValue {
        guard let cursor = cursor(params), let text = text(of: cursor.path) else { return .array([]) }
        let place = CursorPlace(text: text, line: cursor.line, column: cursor.column)
        let candidates = completions(at: place, cursor: cursor, text: text)
        let positions = positions(of: cursor.path)
        var seen = Set<String>()
        var items: [JSONValue] = []
        for candidate in candidates where seen.insert(candidate.label).inserted {
            var item: [(key: String, value: JSONValue)] = [
                ("label", .string(candidate.label)), ("kind", .integer(candidate.kind)),
            ]
            if let detail = candidate.detail { item.append(("detail", .string(detail))) }
            if let documentation = candidate.documentation {
                item.append(("documentation", ["kind": "markdown", "value": .string(documentation)]))
            }
            if place.inString {
                let range: JSONValue = [
                    "start": positions.position(line: cursor.line, column: place.startColumn),
                    "end": positions.position(line: cursor.line, column: cursor.column),
                ]
                item.append(("textEdit", ["range": range, "newText": .string(candidate.label)]))
            } else {
                item.append(("insertText", .string("\"\(candidate.label)\"")))
            }
            items.append(.object(JSONObject(item)))
        }
        return ["isIncomplete": false, "items": .array(items)]
    }

    struct Candidate {
        let label: String
        /// The protocol's CompletionItemKind.
        let kind: Int64
        var detail: String?
        var documentation: String?
    }

    private func keywords(_ names: [String]) -> [Candidate] {
        names.map { Candidate(label: $0, kind: 14, detail: "keyword", documentation: KeywordHelp.markdown($0)) }
    }

    private func completions(at place: CursorPlace, cursor: Cursor, text: String) -> [Candidate] {
        let path = logicalPath(place)
        let files = workspaceFiles
        let outlines = files.compactMap { navigationOutline(of: $0) }
        switch place.role {
        case .key:
            guard let last = path.last else { return keywords(Keywords.topLevel) }
            if path.first == "@models" || path.first == "@tests" || path.contains("@tests") { return [] }
            switch last {
            case "@object": return keywords(Keywords.object + Keywords.union)
            case "@mappings": return keywords(Keywords.context)
            case "@cases", "@valueMap", "@transformUserData", "@keyPath", "@defaultValue": return []
            default: break
            }
            if path.count == 1 {
                var candidates = keywords(Keywords.context)
                if let model = model(ofContext: last) {
                    let written = Set(contextDeclarations(last).first?.entries ?? [])
                    for property in model.properties where !written.contains(property.name) {
                        candidates.insert(
                            Candidate(
                                label: property.name, kind: 10,
                                detail: "\(model.name).\(property.name): \(property.type)",
                                documentation: "An unmapped property of `\(model.name)`."), at: 0)
                    }
                }
                return candidates
            }
            return keywords(Keywords.entry)
        case .value:
            let key = place.key ?? ""
            if path.last == "@cases" || ["@mappings", "@inherits", "@otherwise", "@object"].contains(key) {
                return outlines.flatMap(\.contexts).filter { !$0.name.isEmpty }.map { context in
                    Candidate(label: context.name, kind: 7, detail: context.className.map { "context → \($0)" })
                }
            }
            switch key {
            case "@class":
                return outlines.flatMap(\.models).filter { $0.enumValues == nil }.map {
                    Candidate(label: $0.name, kind: 22, detail: "model")
                }
            case "@type":
                return typeCandidates(outlines)
            case "@transformClass":
                return scripts().moduleNames.map { Candidate(label: $0, kind: 9, detail: relative(scriptPath($0))) }
            case "@transformSelector", "@reverseTransformSelector":
                return functionCandidates(near: cursor, in: text)
            case "@import":
                return importCandidates(from: cursor.path)
            case "@keyPath", "@discriminator":
                return keyPathCandidates(path.first, outlines)
            case "@defaultValue":
                return enumValueCandidates(context: path.first, entry: path.count > 1 ? path[1] : nil, outlines)
            default:
                break
            }
            if let help = KeywordHelp.entry(key), !help.values.isEmpty {
                return help.values.map { Candidate(label: $0, kind: 20, detail: key) }
            }
            if path.first == "@models", path.count == 2 { return typeCandidates(outlines) }
            if path.count == 1, !key.hasPrefix("@"), path[0] != "@models" {
                return keyPathCandidates(path.first, outlines)
            }
            return []
        }
    }

    private func typeCandidates(_ outlines: [SourceOutline]) -> [Candidate] {
        SourceOutline.builtInTypes.sorted().map { Candidate(label: $0, kind: 25, detail: "built-in type") }
            + outlines.flatMap(\.models).map {
                Candidate(
                    label: $0.name, kind: $0.enumValues == nil ? 22 : 13,
                    detail: $0.enumValues == nil ? "model" : "enum")
            }
    }

    /// The functions of the script the entry around the cursor names, or of every script.
    private func functionCandidates(near cursor: Cursor, in text: String) -> [Candidate] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var script: String?
        let window = max(0, cursor.line - 16)..<min(lines.count, cursor.line + 15)
        var nearest = Int.max
        for index in window {
            guard let range = lines[index].range(of: "\"@transformClass\"") else { continue }
            let rest = lines[index][range.upperBound...].drop(while: { $0 == " " || $0 == ":" })
            guard rest.first == "\"" else { continue }
            let name = rest.dropFirst().prefix(while: { $0 != "\"" })
            if abs(index + 1 - cursor.line) < nearest {
                nearest = abs(index + 1 - cursor.line)
                script = String(name)
            }
        }
        let modules = script.map { [$0] } ?? scripts().moduleNames
        return modules.flatMap { module -> [Candidate] in
            guard let text = self.text(of: scriptPath(module)) else { return [] }
            return LuaOutline(text: text).functions.map { function in
                Candidate(
                    label: function.name, kind: 3, detail: "\(module).\(function.name)(\(function.parameters))",
                    documentation: function.documentation.isEmpty ? nil : function.documentation)
            }
        }
    }

    private func importCandidates(from file: String) -> [Candidate] {
        let directory = (file as NSString).deletingLastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".mappings") && (directory as NSString).appendingPathComponent($0) != file }
            .sorted().map { Candidate(label: String($0.dropLast(".mappings".count)), kind: 17, detail: $0) }
    }

    /// Key paths of the payloads in the context's `@tests` inputs.
    private func keyPathCandidates(_ context: String?, _ outlines: [SourceOutline]) -> [Candidate] {
        guard let context else { return [] }
        var paths: [String] = []
        for declared in outlines.flatMap(\.contexts) where declared.name == context {
            for input in declared.testInputs { Self.keyPaths(of: input, prefix: "", into: &paths, depth: 0) }
        }
        return paths.map { Candidate(label: $0, kind: 5, detail: "a key path of \(context)'s @tests inputs") }
    }

    static func keyPaths(of value: JSONValue, prefix: String, into paths: inout [String], depth: Int) {
        guard depth < 8, paths.count < 500 else { return }
        switch value {
        case .object(let object):
            for key in object.keys {
                let path = prefix.isEmpty ? key : prefix + "." + key
                if !paths.contains(path) { paths.append(path) }
                if let member = object[key] { keyPaths(of: member, prefix: path, into: &paths, depth: depth + 1) }
            }
        case .array(let elements):
            for element in elements.prefix(3) { keyPaths(of: element, prefix: prefix, into: &paths, depth: depth + 1) }
        default:
            break
        }
    }

    private func enumValueCandidates(context: String?, entry: String?, _ outlines: [SourceOutline]) -> [Candidate] {
        guard let context, let entry, let model = model(ofContext: context),
            let property = model.properties.first(where: { $0.name == entry })
        else { return [] }
        let typeName = property.type.filter { $0.isLetter || $0.isNumber || $0 == "_" }
        guard let enumeration = outlines.flatMap(\.models).first(where: { $0.name == typeName }),
            let values = enumeration.enumValues
        else { return [] }
        return values.map { Candidate(label: $0, kind: 20, detail: "\(typeName) value") }
    }
}
