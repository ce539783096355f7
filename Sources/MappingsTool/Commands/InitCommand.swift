import ArgumentParser
import Foundation
import Mappings
import MappingsSQL
import MappingsStream

/// `mappings init`: a working project inferred from a sample payload.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a working project — models, a context, tests, a script — inferred from a sample payload.",
        discussion: """
            Reads PAYLOAD (a JSON object, an array of objects, or NDJSON; '-' is stdin) and writes \
            contexts/models.mappings (a model for each kind of object, every key a property: snake_case \
            and kebab-case keys become camelCase properties reading their key; a key missing or null in \
            some record is optional; whole and fractional numbers together are Double; ISO 8601, RFC 2822, \
            Twitter-style and (at keys naming a time) Unix-time values and days are Date with their @dateFormat; \
            http(s) URLs are URL; nested objects are models, arrays of them [Model]), contexts/NAME.mappings \
            (the context $NAME, one context for each nested model, and @tests holding up to three sample \
            records with what they map to) and scripts/Transformers.lua (a commented example transformer). \
            Every sample record maps without an issue before anything is written: a value that does not \
            convert makes its type weaker (Date to String, Int to Double). Without --from, a small example \
            project. Nothing is overwritten without --force, nothing written through a symbolic link, and \
            a failure writes nothing. Then it says on stderr how many records the types rest on, and which \
            properties were typed from fewer than 10 values or only nulls.

            --sample N infers from N records spread over the payload (of an NDJSON file, the lines at N \
            evenly spaced places). --flat writes one model, a table's row for stream --to: nested objects' \
            fields read by key path (user.login: userLogin), arrays of objects as JSON, and a guessed \
            @identity (id, or MODEL_id, in every record and unique); --for sqlite|postgresql is --flat, \
            checked as that database's table.

            NAME is --model, else the payload file's name as a model name (issues.json: Issue).

            Exit status: 0 written; 2 the payload could not be read or inferred from, or a file exists \
            (nothing written).

            Examples:
              mappings init --from issues.json
              mappings init --from weather.json --model Weather --dir weather
              mappings init --from - --model Issue < issues.ndjson
              mappings init --from quakes.ndjson --sample 1000 --for sqlite
            """
    )

    @Option(
        help: ArgumentHelp(
            "The sample payload: a JSON object, an array of objects, or NDJSON ('-': stdin).", valueName: "payload"),
        completion: .file())
    var from: String?

    @Option(help: ArgumentHelp("The root model's name (default: from the payload file's name).", valueName: "name"))
    var model: String?

    @Option(help: ArgumentHelp("The folder to write the project in (default: the current one).", valueName: "dir"))
    var dir: String = "."

    @Flag(help: "Overwrite files that exist (never through a symbolic link).")
    var force = false

    @Option(
        help: ArgumentHelp(
            "Infer from N records spread over the payload (a large NDJSON file: read at N evenly spaced places), "
                + "not from all of it.",
            valueName: "n"))
    var sample: Int?

    @Flag(
        help: ArgumentHelp(
            "Write one flat model, a table's row: nested objects' fields read by key path, collections as JSON, "
                + "a guessed @identity."))
    var flat = false

    /// The databases `--for` writes a table's context for.
    enum Database: String, ExpressibleByArgument, CaseIterable {
        case sqlite, postgresql
    }

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp(
            "--flat, checked as a table of this database (its column names and types).", valueName: "database"))
    var database: Database?

    func validate() throws {
        if let model, let problem = InferredNames.problem(withModelName: model) {
            throw ValidationError("--model: \(problem)")
        }
        if let sample, sample < 1 {
            throw ValidationError("--sample takes a number of records, 1 or more, but got \(sample)")
        }
        if sample != nil, from == nil { throw ValidationError("--sample reads a payload: give it with --from") }
    }

    func run() throws {
        let name = model ?? Self.modelName(from: from)
        let project: InitProject
        do {
            if let from {
                let sampleName = from == "-" ? "a sample payload" : (from as NSString).lastPathComponent
                project = try InitProject.infer(
                    from: try read(from), model: name, sampleName: sampleName, flat: flat || database != nil)
            } else {
                project = try InitProject.skeleton(model: name, flat: flat || database != nil)
            }
            if let database { try Self.checkTable(project, database) }
        } catch let failure as InitFailure {
            Terminal.error("error: \(failure.description)")
            throw ToolFailure(status: .loadFailure)
        }
        let paths = project.files.map { (dir as NSString).appendingPathComponent($0.path) }
        try ProjectWriter(directory: dir, force: force).write(project.files)
        for note in project.notes { Terminal.error("note: \(note)") }
        Terminal.output(summary(project, paths: paths))
        if from != nil { for line in InitReport.lines(project) { Terminal.error("note: \(line)") } }
    }

    /// The sample at `from`: all of it, or `--sample` records spread over it.
    private func read(_ from: String) throws -> InitSample {
        guard let sample else { return try InitSample.read(try PayloadInput.bytes(from, what: "the sample payload")) }
        if from != "-", let spread = try InitSample.spread(sample, ofLinesAt: from) { return spread }
        return try InitSample.read(try PayloadInput.bytes(from, what: "the sample payload")).spread(sample)
    }

    /// Refuses a project whose root context is no table of `database`: two properties one
    /// column, a name PostgreSQL would cut.
    private static func checkTable(_ project: InitProject, _ database: Database) throws(InitFailure) {
        var texts: [String: String] = [:]
        for file in project.files where file.path.hasSuffix(".mappings") { texts[file.path] = file.text }
        do {
            let catalog = try Catalog.load(texts.keys.sorted(), from: .memory(texts))
            let context = try Mapper(catalog: catalog).context(project.context)
            let table = try SQLTable.of(context, in: catalog, named: nil)
            try table.checkIdentifiers(database == .sqlite ? .sqlite : .postgresql)
        } catch let refusal as SQLTable.Refusal {
            throw InitFailure("\(project.context) makes no \(database.rawValue) table: \(refusal.message)")
        } catch {
            throw InitFailure("\(project.context) does not load: \(error)")
        }
    }

    /// What was written, and the commands that use it.
    private func summary(_ project: InitProject, paths: [String]) -> String {
        let models = project.models.map(\.name).joined(separator: ", ")
        var lines = [
            "wrote \(paths[0]) (\(project.models.count) model\(project.models.count == 1 ? "" : "s"): \(models))",
            "wrote \(paths[1]) (\(project.context)\(project.identity.map { ", @identity \($0)" } ?? ""), "
                + "\(project.tests) test\(project.tests == 1 ? "" : "s"))",
            "wrote \(paths[2]) (an example transformer)",
            "next:",
        ]
        let folder = dir == "." ? "" : (dir.hasSuffix("/") ? dir : dir + "/")
        let flags = folder.isEmpty ? "" : " --mappings \(folder)contexts --scripts \(folder)scripts"
        let context = " --context '\(project.context)'"
        lines.append("  mappings test\(flags)")
        if let database {
            lines.append("  mappings schema --format sql --dialect \(database.rawValue)\(flags)\(context)")
            let table = database == .sqlite ? "sqlite:\(SQLTable.snakeCase(project.model)).db" : "postgresql://…"
            let input = from.map { $0 == "-" ? "PAYLOAD.ndjson" : $0 } ?? "PAYLOAD.ndjson"
            if project.form == .lines {
                lines.append("  mappings stream --to \(table) --create-tables\(flags)\(context) \(input)")
            }
        } else if let from, from != "-" {
            switch project.form {
            case .object: lines.append("  mappings map\(flags)\(context) \(from)")
            case .array: lines.append("  mappings map --many\(flags)\(context) \(from)")
            case .lines: lines.append("  mappings stream\(flags)\(context) \(from)")
            }
        }
        lines.append("  mappings playground\(flags)")
        return lines.joined(separator: "\n")
    }

    /// `issues.json` → `Issue`, `open-weather.json` → `OpenWeather`; stdin or none: `Record`.
    static func modelName(from path: String?) -> String {
        guard let path, path != "-" else { return "Record" }
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let name = InferredNames.model(InferredNames.singular(stem))
        return InferredNames.problem(withModelName: name) == nil ? name : "Record"
    }
}
