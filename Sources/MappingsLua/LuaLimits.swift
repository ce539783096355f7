/// How much a Lua transformer may use: memory per interpreter, instructions and time per call.
///
/// A call that runs past its instruction budget or its deadline, or an interpreter that
/// reaches its memory cap, fails that value with an issue; the interpreter is then replaced.
/// ```swift
/// let scripts = LuaScripts(directory: "scripts", limits: LuaLimits(memory: 32 << 20, timeout: .milliseconds(200)))
/// ```
public struct LuaLimits: Sendable, Hashable {
    /// Bytes one interpreter may hold (scripts, their data and every value in flight). Default 64 MiB.
    public var memory: Int
    /// Lua VM instructions one call may run, counted in steps of 1000. Default 10 million.
    public var instructions: Int
    /// Wall-clock time one call may take. Default 1 second.
    public var timeout: Duration
    /// Bytes one result may take as it crosses back to the host (strings, keys and a few bytes
    /// per value); a larger result is an issue for that value. Default 8 MiB, well under the
    /// interpreter's cap, so a host holding many results at once stays small.
    public var result: Int

    /// Limits; each defaults to the value the tool uses.
    public init(
        memory: Int = 64 << 20, instructions: Int = 10_000_000, timeout: Duration = .seconds(1),
        result: Int = 8 << 20
    ) {
        self.memory = memory
        self.instructions = instructions
        self.timeout = timeout
        self.result = result
    }

    var timeoutNanoseconds: Int64 {
        let (seconds, attoseconds) = timeout.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// Where Lua transformers run.
///
/// `.inProcess` runs them in interpreters inside the host: the fastest; every library call is
/// bounded (docs/lua.md), but a bug in Lua itself would reach the host. `.process` runs them
/// in a pool of sandbox worker processes, each limited in address space and CPU and without
/// file system writes or network, killed and replaced when a call passes its deadline.
public enum LuaIsolation: String, Sendable, Hashable, CaseIterable {
    case inProcess = "none"
    case process
}
