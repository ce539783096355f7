import ArgumentParser
import MappingsLua
import MappingsStream

/// The `--lua-*` options: the limits each Lua interpreter, call and result are held to, and
/// where the scripts run.
struct LuaOptions: ParsableArguments {
    @Option(
        name: .customLong("lua-memory"), parsing: .unconditional,
        help: ArgumentHelp("Memory each Lua interpreter may hold, in MiB.", valueName: "mib"))
    var memory = 64

    @Option(
        name: .customLong("lua-budget"), parsing: .unconditional,
        help: ArgumentHelp("Lua VM instructions one transformer call may run.", valueName: "count"))
    var budget = 10_000_000

    @Option(
        name: .customLong("lua-timeout"), parsing: .unconditional,
        help: ArgumentHelp("Time one Lua transformer call may take, in milliseconds.", valueName: "ms"))
    var timeout = 1000

    @Option(
        name: .customLong("lua-max-result"), parsing: .unconditional,
        help: ArgumentHelp(
            "The largest value a Lua transformer may return, in MiB; a larger one is an issue.", valueName: "mib"))
    var maxResult = 8

    @Option(
        name: .customLong("lua-isolation"),
        help: ArgumentHelp(
            "Where Lua transformers run: none (in this process, default) or process (sandbox worker processes, killed at their deadline).",
            valueName: "none|process"), completion: .list(["none", "process"]))
    var isolationName = LuaIsolation.inProcess.rawValue

    @Flag(
        help:
            "Turn off the lines Lua scripts write with log(...) or print(...), and the warnings of loading the .mappings files (stderr; check still lists them)."
    )
    var quiet = false

    var isolation: LuaIsolation { LuaIsolation(rawValue: isolationName) ?? .inProcess }

    /// Where the lines scripts log go: stderr, or nowhere with `--quiet`.
    var log: LuaLog { quiet ? .off : .standardError }

    /// Prints how many log lines were dropped, when some were; for the end of a run.
    func reportDroppedLogLines() {
        if let summary = log.droppedSummary { Terminal.error(summary) }
    }

    /// The limits, in the units `LuaScripts` takes.
    var limits: LuaLimits {
        LuaLimits(memory: memory << 20, instructions: budget, timeout: .milliseconds(timeout), result: maxResult << 20)
    }

    func validate() throws {
        guard LuaIsolation(rawValue: isolationName) != nil else {
            throw ValidationError("--lua-isolation takes none or process, but got '\(isolationName)'")
        }
        try OptionRange(option: "--lua-memory", range: LuaLimits.Ranges.memoryMiB, unit: "MiB").check(memory)
        try OptionRange(option: "--lua-budget", range: LuaLimits.Ranges.budget, unit: "instructions").check(budget)
        try OptionRange(option: "--lua-timeout", range: LuaLimits.Ranges.timeoutMilliseconds, unit: "ms").check(timeout)
        try OptionRange(option: "--lua-max-result", range: LuaLimits.Ranges.maxResultMiB, unit: "MiB").check(
            maxResult)
    }
}
