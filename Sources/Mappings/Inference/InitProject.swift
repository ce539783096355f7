import Foundation
import MappingsCompiler
import MappingsEngine
import MappingsModel

/// The files `mappings init` writes: `contexts/models.mappings` (the models inferred from a
/// sample payload), `contexts/NAME.mappings` (a context a model, `$NAME` for the root, with
/// `@tests` holding sample records and what they map to) and `scripts/Transformers.lua` (a
/// commented example transformer).
///
/// What is inferred is checked before it is written: the files load, and every sample record
/// maps without an issue. A value that does not convert to the type inferred for it (a date
/// outside what a date holds, say) makes that property's type weaker (`Date` → `String`,
/// `Int` → `Double` → `Decimal` → `JSON`), and the records are mapped again.
package struct InitProject {
    /// Paths relative to the project's folder, and their texts, formatted as `mappings fmt` does.
    package var files: [(path: String, text: String)]
    /// The root model and its context's identifier.
    package var model: String
    package var context: String { "$" + model }
    /// The models written, the root's first.
    package var models: [InferredModel]
    /// How many sample records there were, and how many became tests.
    package var records: Int
    package var tests: Int
    /// Whether the sample was an array of records (`map --many` maps it) or NDJSON (`stream`).
    package var form: InitSample.Form
    /// What the files leave out of the sample, and why (a key no key path can name).
    package var notes: [String] = []

    /// What the records were spread over when they are a spread of a larger payload (`--sample N`).
    package var spreadOver: String?
    /// The root's property guessed to identify a record (`--flat`), written as its `@identity`.
    package var identity: String?

    /// The project of `sample`, its root model `model`; `sampleName` is the sample's file
    /// name, which the comments cite. `flat`: one model, a table's row (`ModelInference.flat`),
    /// with a guessed `@identity`.
    package static func infer(
        from sample: InitSample, model: String, sampleName: String, flat: Bool = false
    ) throws(InitFailure) -> InitProject {
        if let problem = InferredNames.problem(withModelName: model) { throw InitFailure(problem) }
        var inference = ModelInference()
        inference.flat = flat
        // A record becomes a test only when the file holding it nests no deeper than a
        // `.mappings` file may: the test puts it `testsDepth` levels in.
        let deepest = SyntaxParser.maximumDepth - InitTexts.testsDepth
        let fitting = sample.records.indices.filter { Self.depth(of: .object(sample.records[$0])) <= deepest }
        for _ in 0..<12 {
            inference.infer(sample.records, root: model)
            var texts = InitTexts(models: inference.models, root: model, sampleName: sampleName)
            texts.identity = inference.identity
            let catalog = try load(texts.files(tests: ""))
            let mapper = Mapper(catalog: catalog)
            guard let contexts = mapper.catalog.context("$" + model) else {
                throw InitFailure("the inferred context $\(model) did not load")
            }
            var outputs: [String] = []
            var forced = false
            for record in sample.records {
                let result = mapper.object(from: .object(record), using: contexts)
                for issue in result.issues {
                    forced =
                        inference.weaken(at: issue.property, missing: issue.kind == .missingRequiredValue)
                        || forced
                }
                var text: [UInt8] = []
                JSONWriter.write(result.value, into: &text)
                outputs.append(String(decoding: text, as: UTF8.self))
            }
            if forced { continue }
            let chosen = InitSample.testRecords(sample.records, among: fitting)
            let tests = chosen.map { index in
                texts.test(
                    name: sample.records.count == 1
                        ? sampleName : "\(sampleName), record \(index + 1)",
                    input: sample.records[index], output: outputs[index])
            }
            let files = texts.files(tests: tests.joined(separator: ", "))
            let failed = ContextTestRunner.run(try load(files)).filter { !$0.passed }
            guard failed.isEmpty else {
                throw InitFailure(
                    "the inferred tests do not pass (a bug of mappings init): "
                        + failed.map { $0.title + ": " + $0.failures.joined(separator: ", ") }.joined(separator: "; "))
            }
            var notes = inference.notes
            if fitting.count < sample.records.count {
                let left = sample.records.count - fitting.count
                notes.append(
                    "\(left == 1 ? "a record nests" : "\(left) records nest") deeper than \(deepest) levels, which "
                        + "@tests cannot hold (a .mappings file nests at most \(SyntaxParser.maximumDepth)): "
                        + (fitting.isEmpty ? "no test written" : "tests hold the others"))
            }
            return InitProject(
                files: files, model: model, models: inference.models, records: sample.records.count,
                tests: chosen.count, form: sample.form, notes: notes, spreadOver: sample.spreadOver,
                identity: inference.identity)
        }
        throw InitFailure("the sample's values kept failing to convert to any type inferred for them")
    }

    /// How deeply objects and arrays nest in `value`: 0 for a scalar, 1 for `{}` or `[1]`.
    static func depth(of value: JSONValue) -> Int {
        switch value {
        case .object(let object): 1 + (object.members.lazy.map { depth(of: $0.value) }.max() ?? 0)
        case .array(let elements): 1 + (elements.lazy.map { depth(of: $0) }.max() ?? 0)
        default: 0
        }
    }

    /// A commented skeleton, for `init` without a sample: one model, its context and a test.
    package static func skeleton(model: String, flat: Bool = false) throws(InitFailure) -> InitProject {
        let record = JSONObject([
            ("id", .integer(1)), ("title", .string("Hello")),
            ("created_at", .string("2024-03-01T10:00:00Z")), ("tags", .array([.string("new")])),
        ])
        return try infer(
            from: InitSample(records: [record], form: .object), model: model, sampleName: "a sample payload", flat: flat
        )
    }

    /// Loads `files` as `mappings check` would load the project's `contexts/`.
    private static func load(_ files: [(path: String, text: String)]) throws(InitFailure) -> Catalog {
        var texts: [String: String] = [:]
        for file in files where file.path.hasSuffix(".mappings") { texts[file.path] = file.text }
        do {
            return try Catalog.load(texts.keys.sorted(), from: .memory(texts))
        } catch {
            throw InitFailure("the inferred files do not load (a bug of mappings init):\n\(error)")
        }
    }
}

/// Why `init` could not make a project.
package struct InitFailure: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

extension ModelInference {
    /// Makes weaker the type of the property an issue names (`Issue.labels[2].name`), or makes
    /// it optional when its value was missing; `false` when it names none of the models.
    mutating func weaken(at property: String, missing: Bool) -> Bool {
        var names = property.split(separator: ".").map { step -> String in
            String(step.prefix(while: { $0 != "[" }))
        }
        guard !names.isEmpty, var model = models.first(where: { $0.name == names.removeFirst() }) else {
            return false
        }
        while let name = names.first, let found = model.properties.first(where: { $0.name == name }) {
            names.removeFirst()
            if !names.isEmpty, let nested = found.type.model, let next = models.first(where: { $0.name == nested }) {
                model = next
                continue
            }
            if missing, !found.isOptional {
                optional[model.name, default: []].insert(found.name)
            } else {
                overrides[model.name, default: [:]][found.name] = found.type.weaker
            }
            return true
        }
        return false
    }
}
