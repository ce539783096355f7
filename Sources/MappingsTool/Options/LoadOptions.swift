import ArgumentParser
import Foundation
import Mappings
import MappingsLua
import MappingsStream

/// The options every subcommand that loads contexts shares: where the contexts and scripts
/// are, the traits, and (through `LuaOptions`) the Lua limits.
struct LoadOptions: ParsableArguments {
    @Option(
        name: .customLong("mappings"),
        help: ArgumentHelp(
            "A .mappings file, or a directory whose *.mappings files load in name order. Repeatable.",
            valueName: "path"), completion: .file(extensions: ["mappings"]))
    var paths: [String] = []

    @Option(
        name: .customLong("trait"),
        help: ArgumentHelp(
            "A trait that @when selectors test, as KEY=VALUE (KEY alone means true). Repeatable.",
            valueName: "key=value"))
    var traitAssignments: [String] = []

    @Option(
        name: .customLong("scripts"),
        help: ArgumentHelp(
            "The directory of the Lua transformers: @transformClass X names DIR/X.lua (default: the scripts folder beside --mappings' folder, else scripts).",
            valueName: "dir"), completion: .directory)
    var scripts: String?

    @OptionGroup var lua: LuaOptions

    @Option(
        name: .customLong("max-table-memory"),
        help: ArgumentHelp(
            "Memory the lookup tables (@tables) may take together, in MiB; a table past it is a load error naming it.",
            valueName: "mib"))
    var maxTableMemory = Catalog.defaultMaxTableMemory >> 20

    @Option(help: "Color the diagnostics on stderr: auto (when it is a terminal and NO_COLOR is unset), always, never.")
    var color: ColorChoice = .auto

    func validate() throws {
        try OptionRange(option: "--max-table-memory", range: 1...1_048_576, unit: "MiB").check(maxTableMemory)
        for assignment in traitAssignments {
            guard let (key, _) = Traits.parseAssignment(assignment) else {
                throw ValidationError("--trait takes KEY=VALUE, but got '\(assignment)'")
            }
            guard Traits.isName(key) else {
                throw ValidationError(
                    "--trait '\(assignment)': \"\(key)\" is not a trait name "
                        + "(letters, digits, '_', '.' and '-', not starting with a digit)")
            }
        }
    }

    var traits: Traits {
        var traits = Traits()
        for assignment in traitAssignments {
            if let (key, value) = Traits.parseAssignment(assignment) { traits[key] = value }
        }
        return traits
    }

    /// The `--scripts` directory; when none is given, the `scripts` folder beside the contexts'
    /// folder (`mappings init`'s layout, as the Python module finds it), else `scripts` where
    /// you stand (which need not exist).
    var scriptsDirectory: String { scripts ?? LuaScripts.directory(besideContexts: paths.first) }

    /// The `--mappings` paths, or `contexts` when none is given.
    var mappingsPaths: [String] { paths.isEmpty ? ["contexts"] : paths }

    /// The transformers entries may name: the Lua scripts of `--scripts`, within the `--lua-*` limits.
    var transformers: TransformerRegistry {
        var registry = TransformerRegistry()
        registry.add(
            LuaScripts(directory: scriptsDirectory, limits: lua.limits, isolation: lua.isolation, log: lua.log))
        return registry
    }

    /// The context `identifier` of `mapper`, looked up once; an unknown one is printed with its
    /// suggestion and fails with exit status 2.
    /// The context `--context` names, or, without `--context`, the one context of the files;
    /// more than one is an error that lists them.
    static func contextIdentifier(_ given: String?, in catalog: Catalog) throws -> String {
        if let given { return given }
        let identifiers = catalog.identifiers
        if identifiers.count == 1 { return identifiers[0] }
        let listed = identifiers.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
        Terminal.error(
            identifiers.isEmpty
                ? "error: the files hold no context: write one (docs/language.md, \"Contexts\"), or 'mappings init'"
                : "error: --context is needed: the files hold \(identifiers.count) contexts (\(listed)"
                    + (identifiers.count > 8 ? ", …" : "") + "); for example --context '\(identifiers[0])'")
        throw ToolFailure(status: .loadFailure)
    }

    static func context(_ identifier: String, of mapper: Mapper) throws -> CompiledContext {
        do {
            return try mapper.context(identifier)
        } catch {
            Terminal.diagnostics(error)
            throw ToolFailure(status: .loadFailure)
        }
    }

    /// Loads the catalog, or prints every diagnostic to stderr and fails with exit status 2.
    /// The load's warnings (`Catalog.warnings`) go to stderr unless `--quiet`; `mappings check`,
    /// which is asked for them, passes `warnings: .always`.
    func loadCatalog(warnings: WarningOutput = .unlessQuiet) throws -> Catalog {
        if let scripts {
            guard let directory = opendir(scripts) else {
                throw InputFile.unreadable(
                    InputFile.Failure(errno: errno), path: scripts, what: "the scripts directory")
            }
            closedir(directory)
        }
        if paths.isEmpty, !FileManager.default.fileExists(atPath: "contexts") {
            Terminal.error(
                "error: no contexts/ folder here, where the .mappings files are read from by default ("
                    + FileManager.default.currentDirectoryPath + ")\n"
                    + "  = help: 'mappings init --from PAYLOAD' writes a project inferred from a payload; "
                    + "or name the files: --mappings PATH")
            throw ToolFailure(status: .loadFailure)
        }
        do {
            let catalog = try Catalog.load(
                mappingsPaths, traits: traits, transformers: transformers, maxTableMemory: maxTableMemory << 20)
            if warnings == .always || !lua.quiet { Terminal.diagnostics(catalog.warnings, severity: "warning") }
            return catalog
        } catch {
            let count = error.diagnostics.count
            Terminal.diagnostics(error)
            Terminal.error("\nmappings: \(count) error\(count == 1 ? "" : "s") found")
            throw ToolFailure(status: .loadFailure)
        }
    }

    /// Whether a load prints its warnings.
    enum WarningOutput {
        /// Unless `--quiet` (the commands that map, serialize, explain or test).
        case unlessQuiet
        /// Always (`mappings check`, which lists them).
        case always
    }
}
