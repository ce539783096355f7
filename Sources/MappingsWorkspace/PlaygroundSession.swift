import Foundation
package import Mappings
package import MappingsLua

/// What `mappings playground` works on: the `.mappings` files the roots load and the scripts
/// beside them, as on disk or as the page has edited them, and what a run of a context on a
/// payload gives — the output, the issues, the load's diagnostics, the `explain` trace and the
/// context's `@tests` — as the JSON the page shows.
///
/// Nothing here writes a file but `save`, which the server calls only with `--write`, for files
/// the session listed, once their texts load.
package struct PlaygroundSession: Sendable {
    package let roots: [String]
    package let scriptsDirectory: String
    package let traits: Traits
    package let limits: LuaLimits
    package let writes: Bool
    /// The bytes the lookup tables may take together (`--max-table-memory`).
    package let maxTableMemory: Int
    /// The context the page starts on (`--context`), else the first the catalog lists.
    package let context: String?
    /// The payload the page starts with (`--input`), else the context's first `@tests` input.
    package let input: String?

    /// One file the page may edit.
    package struct File: Sendable {
        package var path: String
        package var text: String
        package var kind: String
    }

    package init(
        roots: [String], scriptsDirectory: String, traits: Traits, limits: LuaLimits, writes: Bool, context: String?,
        input: String?, maxTableMemory: Int = Catalog.defaultMaxTableMemory
    ) {
        self.maxTableMemory = maxTableMemory
        self.roots = roots
        self.scriptsDirectory = scriptsDirectory
        self.traits = traits
        self.limits = limits
        self.writes = writes
        self.context = context
        self.input = input
    }

    /// The `.mappings` files the roots load (imports included), then the scripts, as on disk.
    package func files() -> [File] {
        var found: [File] = []
        let catalog = try? unsaved([:]).load(roots)
        let mappings = catalog?.files ?? mappingsFiles()
        for path in mappings {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                found.append(File(path: path, text: text, kind: "mappings"))
            }
        }
        for path in scriptFiles() {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                found.append(File(path: path, text: text, kind: "script"))
            }
        }
        return found
    }

    /// The `.mappings` files of the roots, by name, when they do not load (the page still edits them).
    private func mappingsFiles() -> [String] {
        roots.flatMap { root -> [String] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else { return [] }
            guard isDirectory.boolValue else { return [root] }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
            return names.filter { $0.hasSuffix(".mappings") }.sorted().map {
                (root as NSString).appendingPathComponent($0)
            }
        }
    }

    /// The `.lua` files of the scripts directory, by path.
    private func scriptFiles() -> [String] {
        guard let names = FileManager.default.subpaths(atPath: scriptsDirectory) else { return [] }
        return names.filter { $0.hasSuffix(".lua") }.sorted().map {
            (scriptsDirectory as NSString).appendingPathComponent($0)
        }
    }

    /// The files with the page's edits over them.
    private func unsaved(_ edits: [String: String]) -> UnsavedTexts {
        UnsavedTexts(
            scriptsDirectory: scriptsDirectory, traits: traits, limits: limits, texts: edits,
            maxTableMemory: maxTableMemory)
    }

    /// The catalog of the files with the page's edits, or the diagnostics that refuse it.
    private func load(_ edits: [String: String]) -> Result<Catalog, MappingsError> {
        do {
            return .success(try unsaved(edits).load(roots))
        } catch {
            return .failure(error)
        }
    }

    /// What the page starts with: the files, the contexts, the chosen one and its payload.
    package func state() -> JSONValue {
        let files = files()
        var contexts: [String] = []
        var contextFiles: [(key: String, value: JSONValue)] = []
        var contextLines: [(key: String, value: JSONValue)] = []
        var payload = input
        if case .success(let catalog) = load([:]) {
            contexts = catalog.identifiers
            for identifier in contexts {
                if let location = catalog.context(identifier)?.provenance.location {
                    contextFiles.append((identifier, .string(location.file)))
                    contextLines.append((identifier, .integer(Int64(location.line))))
                }
            }
            let chosen = context ?? contexts.first
            if payload == nil, let chosen, let test = catalog.context(chosen)?.tests.first {
                payload = Self.pretty(test.input)
            }
        }
        return [
            "files": .array(
                files.map { ["path": .string($0.path), "text": .string($0.text), "kind": .string($0.kind)] }),
            "contexts": .array(contexts.map { .string($0) }),
            "contextFiles": .object(JSONObject(contextFiles)),
            "contextLines": .object(JSONObject(contextLines)),
            "context": context.map { .string($0) } ?? contexts.first.map { .string($0) } ?? .null,
            "payload": .string(payload ?? "{}\n"),
            "writes": .bool(writes),
        ]
    }

    /// A run of `context` on `payload` with the page's edits.
    package func run(context: String?, edits: [String: String], payload: String) -> JSONValue {
        answer(load(edits), context: context, payload: payload)
    }

    /// A run of a new project the page holds alone (`New from this payload`): its files, by
    /// path (`contexts/…` and `scripts/…`), none of them on disk.
    package func run(project files: [String: String], context: String?, payload: String) -> JSONValue {
        let loaded: Result<Catalog, MappingsError>
        do {
            var registry = TransformerRegistry()
            registry.add(
                LuaScripts(
                    directory: "scripts", limits: limits, unsaved: files.filter { $0.key.hasPrefix("scripts/") }))
            loaded = .success(
                try Catalog.load(
                    ["contexts"], from: .memory(files.filter { $0.key.hasSuffix(".mappings") }),
                    traits: traits, transformers: registry, maxTableMemory: maxTableMemory))
        } catch {
            loaded = .failure(error)
        }
        return answer(loaded, context: context, payload: payload)
    }

    /// A new project inferred from `payload` (`mappings init`'s), its root model `model`: its
    /// files and context, or why there is none.
    package func newProject(from payload: String, model: String) -> JSONValue {
        do {
            let project = try InitProject.infer(
                from: try InitSample.read(Array(payload.utf8)), model: model, sampleName: "the playground's payload")
            return [
                // What was left out, then what the types rest on, as `init` says them.
                "context": .string(project.context),
                "notes": .array((project.notes + InitReport.lines(project)).map { .string($0) }),
                "files": .array(
                    project.files.map { file in
                        [
                            "path": .string(file.path), "text": .string(file.text),
                            "kind": .string(file.path.hasSuffix(".lua") ? "script" : "mappings"),
                        ]
                    }),
            ]
        } catch {
            return ["error": .string(error.description)]
        }
    }

    /// What the page shows of a load: the output, issues, explanations and tests of `context` on
    /// `payload`, or the diagnostics that refuse the files (the tests then not run).
    private func answer(_ loaded: Result<Catalog, MappingsError>, context: String?, payload: String) -> JSONValue {
        var answer: [String: JSONValue] = [
            "diagnostics": [], "issues": [], "explain": [], "tests": [], "testsRun": false, "output": .null,
            "contexts": [],
        ]
        let catalog: Catalog
        switch loaded {
        case .failure(let error):
            answer["diagnostics"] = .array(error.diagnostics.map { Self.json($0, severity: "error") })
            return .object(JSONObject(answer.sorted { $0.key < $1.key }))
        case .success(let loaded):
            catalog = loaded
        }
        answer["contexts"] = .array(catalog.identifiers.map { .string($0) })
        answer["diagnostics"] = .array(catalog.warnings.map { Self.json($0, severity: "warning") })
        let mapper = Mapper(catalog: catalog)
        let identifier = context ?? catalog.identifiers.first ?? ""
        let compiled: CompiledContext
        do {
            compiled = try mapper.context(identifier)
        } catch {
            answer["diagnostics"] = .array(error.diagnostics.map { Self.json($0, severity: "error") })
            return .object(JSONObject(answer.sorted { $0.key < $1.key }))
        }
        answer["testsRun"] = true
        answer["tests"] = .array(
            ContextTestRunner.run(catalog, contexts: [identifier]).map { result in
                [
                    "title": .string(result.title), "passed": .bool(result.passed),
                    "failures": .array(result.failures.map { .string($0) }),
                ]
            })
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: Array(payload.utf8), demand: .everything, file: "payload")
        } catch {
            answer["payloadError"] = .array(error.diagnostics.map { Self.json($0, severity: "error") })
            return .object(JSONObject(answer.sorted { $0.key < $1.key }))
        }
        let explained = mapper.explain(parsed, using: compiled)
        answer["explain"] = .array(explained.explanations.map { .string($0.description) })
        answer["filtered"] = .bool(explained.result.filtered)
        if !explained.result.filtered {
            let text = explained.result.value.jsonText
            answer["output"] = .string((try? JSONValue(parsing: Array(text.utf8))).map { Self.pretty($0) } ?? text)
        }
        // Each issue in the one shape every surface writes, with the rule's file and line apart
        // (for the page to show them) and the line `map` prints.
        answer["issues"] = .array(
            explained.result.issues.map { issue in
                guard case .object(let object) = issue.json else { return issue.json }
                return .object(
                    JSONObject(
                        object.members + [
                            ("file", .string(issue.rule.location.file)),
                            ("line", .integer(Int64(issue.rule.location.line))), ("text", .string(issue.description)),
                        ]))
            })
        return .object(JSONObject(answer.sorted { $0.key < $1.key }))
    }

    /// What saving the edits did: the files written, or the diagnostics that refuse them.
    package enum Saved {
        case written([String])
        case refused([Diagnostic])
        case unknownFile(String)
    }

    /// Writes the edited files that the session listed, once their texts load together.
    package func save(_ edits: [String: String]) -> Saved {
        let known = Set(files().map(\.path))
        if let stranger = edits.keys.sorted().first(where: { !known.contains($0) }) { return .unknownFile(stranger) }
        if case .failure(let error) = load(edits) { return .refused(error.diagnostics) }
        var written: [String] = []
        for (path, text) in edits.sorted(by: { $0.key < $1.key }) {
            guard (try? String(contentsOfFile: path, encoding: .utf8)) != text else { continue }
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                written.append(path)
            } catch {
                return .refused([Diagnostic(message: "cannot write \"\(path)\": \(error.localizedDescription)")])
            }
        }
        return .written(written)
    }

    package static func json(_ diagnostic: Diagnostic, severity: String) -> JSONValue {
        // Escaped as the tool prints them: what came from a file shows, and hides nothing.
        var members: [String: JSONValue] = [
            "message": .string(DiagnosticRenderer.printable(diagnostic.message)), "severity": .string(severity),
            "text": .string(DiagnosticRenderer().render(diagnostic, severity: severity)),
        ]
        if let help = diagnostic.help { members["help"] = .string(DiagnosticRenderer.printable(help)) }
        if let location = diagnostic.location {
            members["file"] = .string(location.file)
            members["line"] = .integer(Int64(location.line))
            members["column"] = .integer(Int64(location.column))
        }
        return .object(JSONObject(members.sorted { $0.key < $1.key }))
    }

    /// A JSON value as indented text, every number and string exactly as the value holds it.
    package static func pretty(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .array(let elements) where !elements.isEmpty:
            return "[\n" + elements.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let object) where !object.members.isEmpty:
            let members = object.members.map { member in
                inner + JSONWriter.string(.string(member.key)) + ": " + pretty(member.value, indent: inner)
            }
            return "{\n" + members.joined(separator: ",\n") + "\n\(indent)}"
        default:
            return JSONWriter.string(value)
        }
    }
}
