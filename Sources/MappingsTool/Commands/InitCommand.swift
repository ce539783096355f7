import ArgumentParser
import Foundation
import Mappings
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
            Twitter-style and (at keys naming a time) Unix-time values are Date with their @dateFormat; \
            http(s) URLs are URL; nested objects are models, arrays of them [Model]), contexts/NAME.mappings \
            (the context $NAME, one context for each nested model, and @tests holding up to three sample \
            records with what they map to) and scripts/Transformers.lua (a commented example transformer). \
            Every sample record maps without an issue before anything is written: a value that does not \
            convert makes its type weaker (Date to String, Int to Double). Without --from, a small example \
            project. Nothing is overwritten without --force.

            NAME is --model, else the payload file's name as a model name (issues.json: Issue).

            Exit status: 0 written; 2 the payload could not be read or inferred from, or a file exists \
            (nothing written).

            Examples:
              mappings init --from issues.json
              mappings init --from weather.json --model Weather --dir weather
              mappings init --from - --model Issue < issues.ndjson
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

    @Flag(help: "Overwrite files that exist.")
    var force = false

    func validate() throws {
        if let model, !InitCommand.isModelName(model) {
            throw ValidationError(
                "--model takes a model name (a letter, then letters, digits or _), but got '\(model)'"
                    + " (did you mean '\(InferredNames.model(model))'?)")
        }
    }

    static func isModelName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
    }

    func run() throws {
        let name = model ?? Self.modelName(from: from)
        let project: InitProject
        do {
            if let from {
                let sampleName = from == "-" ? "a sample payload" : (from as NSString).lastPathComponent
                let sample = try InitSample.read(try PayloadInput.bytes(from, what: "the sample payload"))
                project = try InitProject.infer(from: sample, model: name, sampleName: sampleName)
            } else {
                project = try InitProject.skeleton(model: name)
            }
        } catch let failure as InitFailure {
            Terminal.error("error: \(failure.description)")
            throw ToolFailure(status: .loadFailure)
        }
        let paths = project.files.map { (dir as NSString).appendingPathComponent($0.path) }
        let existing = paths.filter { FileManager.default.fileExists(atPath: $0) }
        if !force, !existing.isEmpty {
            Terminal.error(
                "error: \(existing.joined(separator: ", ")) already exist\(existing.count == 1 ? "s" : ""): "
                    + "nothing written (--force overwrites, --dir writes elsewhere)")
            throw ToolFailure(status: .loadFailure)
        }
        for (path, file) in zip(paths, project.files) {
            try? FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            do {
                try OutputFile.write(Array(file.text.utf8), to: path)
            } catch {
                throw OutputFile.unwritable(error, path: path, what: "the project's file")
            }
        }
        for note in project.notes { Terminal.error("note: \(note)") }
        Terminal.output(summary(project, paths: paths))
    }

    /// What was written, and the commands that use it.
    private func summary(_ project: InitProject, paths: [String]) -> String {
        let models = project.models.map(\.name).joined(separator: ", ")
        var lines = [
            "wrote \(paths[0]) (\(project.models.count) model\(project.models.count == 1 ? "" : "s"): \(models))",
            "wrote \(paths[1]) (\(project.context), \(project.tests) test\(project.tests == 1 ? "" : "s"))",
            "wrote \(paths[2]) (an example transformer)",
            "next:",
        ]
        let folder = dir == "." ? "" : (dir.hasSuffix("/") ? dir : dir + "/")
        let flags = folder.isEmpty ? "" : " --mappings \(folder)contexts --scripts \(folder)scripts"
        let context = " --context '\(project.context)'"
        lines.append("  mappings test\(flags)")
        if let from, from != "-" {
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
        return isModelName(name) ? name : "Record"
    }
}
