import ArgumentParser
import Foundation
import Mappings
import MappingsLua

/// The options every subcommand that loads contexts shares.
struct LoadOptions: ParsableArguments {
    @Option(
        name: .customLong("mappings"),
        help: ArgumentHelp(
            "A .mappings file, or a directory whose *.mappings files load in name order. Repeatable.",
            valueName: "path"))
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
            "The directory of the Lua transformers: @transformClass X names DIR/X.lua.", valueName: "dir"))
    var scriptsDirectory = "scripts"

    @Option(
        name: .customLong("lua-memory"),
        help: ArgumentHelp("Memory each Lua interpreter may hold, in MiB.", valueName: "mib"))
    var luaMemory = 64

    @Option(
        name: .customLong("lua-budget"),
        help: ArgumentHelp("Lua VM instructions one transformer call may run.", valueName: "count"))
    var luaBudget = 10_000_000

    @Option(
        name: .customLong("lua-timeout"),
        help: ArgumentHelp("Time one Lua transformer call may take, in milliseconds.", valueName: "ms"))
    var luaTimeout = 1000

    @Option(
        name: .customLong("lua-max-result"),
        help: ArgumentHelp(
            "The largest value a Lua transformer may return, in MiB; a larger one is an issue.", valueName: "mib"))
    var luaMaxResult = 8

    @Option(
        name: .customLong("lua-isolation"),
        help: ArgumentHelp(
            "Where Lua transformers run: none (in this process, default) or process (sandbox worker processes, killed at their deadline).",
            valueName: "none|process"))
    var luaIsolationName = LuaIsolation.inProcess.rawValue

    var luaIsolation: LuaIsolation { LuaIsolation(rawValue: luaIsolationName) ?? .inProcess }

    func validate() throws {
        guard LuaIsolation(rawValue: luaIsolationName) != nil else {
            throw ValidationError("--lua-isolation takes none or process, but got '\(luaIsolationName)'")
        }
        guard (1...1024).contains(luaMaxResult) else {
            throw ValidationError("--lua-max-result must be 1 to 1024 (MiB)")
        }
        guard luaMemory >= 1, luaMemory <= 1 << 20 else {
            throw ValidationError("--lua-memory must be 1 to 1048576 (MiB)")
        }
        guard luaBudget >= 1000 else { throw ValidationError("--lua-budget must be at least 1000 instructions") }
        guard luaTimeout >= 1 else { throw ValidationError("--lua-timeout must be at least 1 millisecond") }
        for assignment in traitAssignments where Traits.parseAssignment(assignment) == nil {
            throw ValidationError("--trait takes KEY=VALUE, but got '\(assignment)'")
        }
    }

    var traits: Traits {
        var traits = Traits()
        for assignment in traitAssignments {
            if let (key, value) = Traits.parseAssignment(assignment) { traits[key] = value }
        }
        return traits
    }

    /// The `--mappings` paths, or `contexts` when none is given.
    var mappingsPaths: [String] { paths.isEmpty ? ["contexts"] : paths }

    /// The transformers entries may name: the Lua scripts of `--scripts`, within the `--lua-*` limits.
    var transformers: TransformerRegistry {
        var registry = TransformerRegistry()
        let limits = LuaLimits(
            memory: luaMemory << 20, instructions: luaBudget, timeout: .milliseconds(luaTimeout),
            result: luaMaxResult << 20)
        registry.add(LuaScripts(directory: scriptsDirectory, limits: limits, isolation: luaIsolation))
        return registry
    }

    /// The context `identifier` of `mapper`, looked up once; an unknown one is printed with its
    /// suggestion and fails with exit status 2.
    static func context(_ identifier: String, of mapper: Mapper) throws -> CompiledContext {
        do {
            return try mapper.context(identifier)
        } catch {
            Terminal.error(error.description)
            throw ToolFailure(status: .loadFailure)
        }
    }

    /// Loads the catalog, or prints every diagnostic to stderr and fails with exit status 2.
    func loadCatalog() throws -> Catalog {
        do {
            return try Catalog.load(mappingsPaths, traits: traits, transformers: transformers)
        } catch {
            let count = error.diagnostics.count
            Terminal.error(error.description + "\n\n" + "mappings: \(count) error\(count == 1 ? "" : "s") found")
            throw ToolFailure(status: .loadFailure)
        }
    }
}
