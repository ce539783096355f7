import MappingsJSON

extension Converter {
    /// What converting one scalar gave: its value, or why it has none.
    ///
    /// The scalar conversions take no `path` closure: a function handed a closure literal is
    /// specialized for it, and `convert` hands a different one at each level of a payload, so
    /// each scalar conversion would be copied once per nesting (hundreds of KB of code). They
    /// return this instead, are inlined into `convert` (as when it was one function), and only
    /// `convert` records a failure, where it knows the path.
    enum ScalarConversion {
        case converted(Value)
        case failed(String)
        /// Converted, and worth a warning (a Unix time in the unit it most likely is not).
        case warned(Value, String)

        /// The value, or `.null` after appending the failure at `path` to `failures`, with the
        /// value that failed described (`string "x"`), so that a report names the failing part of
        /// a collection or a model, not the whole.
        @inline(__always)
        func recorded(at path: () -> String, of value: JSONValue, in failures: inout [ConversionFailure]) -> Value {
            switch self {
            case .converted(let converted): return converted
            case .warned(let converted, let message):
                var failure = ConversionFailure(relativePath: path(), message: message)
                failure.partValue = Converter.describe(value)
                failure.isWarning = true
                failures.append(failure)
                return converted
            case .failed(let message):
                var failure = ConversionFailure(relativePath: path(), message: message)
                failure.partValue = Converter.describe(value)
                failures.append(failure)
                return .null
            }
        }
    }
}
