#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension StreamRun {
    /// Why a stream stopped before the end of its input.
    package enum StopReason: CustomStringConvertible {
        case signal(Int32)
        case failure
        /// The destination of `--to` could not take the records (its message).
        case destination(String)

        package var description: String {
            switch self {
            case .signal(let number): number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "signal \(number)"
            case .failure: "the first record with issues (--on-issue fail)"
            case .destination(let message): "the destination: \(message)"
            }
        }
    }
}
