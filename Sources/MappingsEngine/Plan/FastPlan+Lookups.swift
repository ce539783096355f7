import MappingsCompiler
import MappingsJSON

extension PlanTables.Conversion {
    /// What converts for `value`: the value, or with `@lookup` its row's cell (or the row);
    /// `nil` when the key finds no row, the cell is empty, or the value is no key — the general
    /// engine's to report.
    @inline(__always)
    func found(_ value: JSONValue) -> JSONValue? {
        guard let lookup else { return value }
        guard case .found(let cell, _) = lookup.value(for: value), cell != .null else { return nil }
        return cell
    }

    /// Whether `value` is a key of the `@lookup` whose row is missing or whose cell is empty: a
    /// missing value (where `found(_:)` gave `nil`), not a value that is no key.
    func findsNoCell(_ value: JSONValue) -> Bool {
        switch lookup?.value(for: value) {
        case .noRow?: true
        case .found(let cell, _)?: cell == .null
        case .invalidKey?, nil: false
        }
    }
}

/// `@lookup` on the record's bytes: the key is the node's bytes, the row is found by them in the
/// table's index, and the cell's bytes are written as the property's type; no `String`, no
/// `JSONValue`, no allocation.
extension Writer {
    /// Writes the cell that the `@lookup` of `property` finds for the key at `node` (its key
    /// written already), and returns whether that went. No row or an empty cell is a missing
    /// value: an optional entry's default, or its null; `false` for a required entry (the
    /// general engine reports it) and for a null `--omit-nulls` leaves out. `nil`, writing
    /// nothing, when the general conversion decides: a key whose text is not its bytes (an
    /// escape, a fraction), a cell of another kind than the property's, a test's fixture table.
    func writesLookup(
        _ node: JSONTape.Node, as property: PlanTables.Property, field: Int32, into out: inout OutputBytes
    ) -> Bool? {
        guard !TableLookup.fixturesInPlace, let key = keyText(of: node) else { return nil }
        let lookup = plan.lookups[Int(property.lookup)]
        guard let column = lookup.column else { return nil }
        guard let row = lookup.table.row(forKeyText: key) else {
            return writesMissing(property, field: field, into: &out)
        }
        return lookup.table.withCell(row: row, column: column) { kind, cell -> Bool? in
            switch (kind, property.lookupCell) {
            case (.empty, _): return writesMissing(property, field: field, into: &out)
            case (.string, 1): writeText(cell, into: &out)
            case (.number, 2): return writesInteger(cell, 0, cell.count, into: &out) ? true : nil
            case (.yes, 3), (.no, 3):
                if tagged {
                    out.append(kind == .yes ? ValueTag.yes.rawValue : ValueTag.no.rawValue)
                } else {
                    out.append(kind == .yes ? "true" : "false")
                }
            default: return nil
            }
            return true
        }
    }

    /// Writes what a missing value of an optional entry is, after its key: its default, or
    /// null; `false` for a required entry, and where `--omit-nulls` leaves the entry out.
    func writesMissing(_ property: PlanTables.Property, field: Int32, into out: inout OutputBytes) -> Bool {
        guard property.isOptional else { return false }
        if property.defaultStart >= 0 {
            let start = Int(property.defaultStart)
            return emit(
                json: UnsafeBufferPointer(rebasing: plan.bytes[start..<start + Int(property.defaultCount)]),
                field: field, into: &out)
        }
        guard !omittingNulls else { return false }
        if tagged { out.append(ValueTag.null.rawValue) } else { out.append("null") }
        return true
    }

    /// The bytes of the key text a scalar at `node` is looked up by (`LookupTable.keyText`):
    /// a string's text (with escapes, decoded into the thread's scratch), `true`, `false`, a
    /// whole number of at most 18 digits written as `String(Int)` writes it; `nil` for any other
    /// node, whose key the general path finds.
    private func keyText(of node: JSONTape.Node) -> UnsafeBufferPointer<UInt8>? {
        let start = Int(node.start)
        let end = Int(node.end)
        switch node.kind {
        case .string where node.escaped:
            scratch.key.count = 0
            appendUnescapedSeeking(node, into: &scratch.key)
            return UnsafeBufferPointer(start: scratch.key.base, count: scratch.key.count)
        case .string, .true, .false:
            return UnsafeBufferPointer(rebasing: bytes[start..<end])
        case .number:
            let digits = bytes[start] == UInt8(ascii: "-") ? start + 1 : start
            guard digits < end, end - digits <= 18 else { return nil }
            // No leading zero but `0` itself (`-0` is `0`'s text), no point, no exponent.
            guard bytes[digits] != UInt8(ascii: "0") || (end - digits == 1 && digits == start) else { return nil }
            for position in digits..<end where bytes[position] &- 48 >= 10 { return nil }
            return UnsafeBufferPointer(rebasing: bytes[start..<end])
        default:
            return nil
        }
    }

    /// A table's string as the writer writes it: quoted, with what JSON requires escaped; with
    /// direct tags, as it is.
    private func writeText(_ text: UnsafeBufferPointer<UInt8>, into out: inout OutputBytes) {
        if tagged {
            out.appendTagged(.string, text, 0, text.count)
            return
        }
        out.append(UInt8(ascii: "\""))
        var position = 0
        // What `JSONWriter.needsEscape` says, inline: a control character, `"` or `\`.
        while position < text.count, text[position] >= 0x20, text[position] != UInt8(ascii: "\""),
            text[position] != UInt8(ascii: "\\")
        {
            position += 1
        }
        if position == text.count {
            if position > 0 { out.append(text, 0, position) }
        } else {
            writeEscaping(text, from: position, into: &out)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Writes `text` escaped as the writer escapes it, its first byte to escape at `first`.
    private func writeEscaping(_ text: UnsafeBufferPointer<UInt8>, from first: Int, into out: inout OutputBytes) {
        var runStart = 0
        for position in first..<text.count where JSONWriter.needsEscape(text[position]) {
            if position > runStart { out.append(text, runStart, position - runStart) }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { buffer in
                let count = JSONWriter.writeEscape(of: text[position], to: buffer.baseAddress!)
                out.append(UnsafeBufferPointer(buffer), 0, count)
            }
            runStart = position + 1
        }
        if text.count > runStart { out.append(text, runStart, text.count - runStart) }
    }
}
