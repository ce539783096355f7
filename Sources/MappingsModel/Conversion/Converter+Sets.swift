import MappingsJSON

/// Converting to sets, `{T}`: an array converted element by element, each value kept once (a
/// repeated one is a warning naming both indexes), then put in the canonical order.
extension Converter {
    /// - Parameter type: the set type itself, for the message when `value` is no array.
    func convertSet(
        _ value: JSONValue, of element: TypeReference, as type: TypeReference, dateFormat: DateFormats?,
        path: () -> String, failures: inout [ConversionFailure]
    ) -> Value {
        let converted = convertArray(
            value, of: element, as: type, dateFormat: dateFormat, path: path, failures: &failures)
        guard case .array(let all) = converted else { return converted }
        // A value that did not convert (null) was reported; a set has no place for it.
        var kept: [(index: Int, value: Value)] = []
        kept.reserveCapacity(all.count)
        for (index, value) in all.enumerated() {
            if case .null = value { continue }
            kept.append((index, value))
        }
        return .array(Self.distinct(kept, path: path, failures: &failures))
    }

    /// The values of a set, each kept once in the canonical order; a repeated one is a
    /// `duplicate element` warning at its index (`index` is where the value came from in
    /// the payload array).
    package static func distinct(
        _ values: [(index: Int, value: Value)], path: () -> String, failures: inout [ConversionFailure]
    ) -> [Value] {
        var seen: [[UInt8]: Int] = [:]
        var kept: [Value] = []
        kept.reserveCapacity(values.count)
        for (index, value) in values {
            var key: [UInt8] = []
            JSONWriter.write(value, into: &key)
            if let first = seen[key] {
                let text = String(decoding: key, as: UTF8.self)
                var failure = ConversionFailure(
                    relativePath: path() + "[\(index)]",
                    message: "\(text) is already in the set (at [\(first)]): kept once")
                failure.isWarning = true
                failure.isDuplicate = true
                failure.partValue = text
                failures.append(failure)
                continue
            }
            seen[key] = index
            kept.append(value)
        }
        return SetOrder.sorted(kept)
    }
}

/// The order a set's values are held and written in: strings by code points, numbers by
/// value; any other value keeps the order it came in.
package enum SetOrder {
    /// `values` in the canonical order of a set.
    package static func sorted(_ values: [Value]) -> [Value] {
        guard let first = values.first, values.allSatisfy({ sameKind($0, first) }) else { return values }
        switch first {
        case .string, .int, .double, .decimal: return values.sorted(by: precedes)
        default: return values
        }
    }

    /// `values` without repeats (the first kept), in the canonical order: the union of an
    /// existing set with new values.
    package static func union(_ values: [Value]) -> [Value] {
        var seen: Set<[UInt8]> = []
        var kept: [Value] = []
        for value in values {
            var key: [UInt8] = []
            JSONWriter.write(value, into: &key)
            if seen.insert(key).inserted { kept.append(value) }
        }
        return sorted(kept)
    }

    private static func sameKind(_ lhs: Value, _ rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.string, .string), (.int, .int), (.double, .double), (.decimal, .decimal): true
        default: false
        }
    }

    private static func precedes(_ lhs: Value, _ rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)):
            left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars)
        case (.int(let left), .int(let right)): left < right
        case (.double(let left), .double(let right)): left < right
        case (.decimal(let left), .decimal(let right)): ExactDecimal.precedes(left, right)
        default: false
        }
    }
}
