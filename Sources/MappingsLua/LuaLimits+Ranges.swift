extension LuaLimits {
    /// The values each limit may be given, in the units the tool's `--lua-*` options and the
    /// Python module's `load()` take them: both check these, so that neither accepts what the
    /// other refuses (no cap, no deadline, a size that overflows once shifted into bytes).
    package enum Ranges {
        /// `--lua-memory`, `lua_memory_mib`: MiB an interpreter may hold (at most 1 TiB).
        package static let memoryMiB = 1...(1 << 20)
        /// `--lua-budget`, `lua_budget`: instructions a call may run (the hook counts by 1000).
        package static let budget = 1000...Int.max
        /// `--lua-timeout`, `lua_timeout_ms`: milliseconds a call may take. An hour: a call that
        /// may take longer is not a transformer.
        package static let timeoutMilliseconds = 1...3_600_000
        /// `--lua-max-result`, `lua_max_result_mib`: MiB a result may take.
        package static let maxResultMiB = 1...1024
    }
}
