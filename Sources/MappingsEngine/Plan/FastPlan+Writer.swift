import MappingsCompiler
import MappingsJSON
import MappingsModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a `Writer` writes: JSON text, or value tags (`DirectTags`). A type, so that each is
/// compiled on its own and the JSON writer tests nothing for tags.
protocol WriterOutput {
    static var writesTags: Bool { get }
}

enum JSONOutput: WriterOutput {
    static var writesTags: Bool { false }
}

enum TagOutput: WriterOutput {
    static var writesTags: Bool { true }
}

/// Runs a plan's tables over one scanned record: the general engine's lookup, conversion and
/// output rules, on tape nodes. Every function returns `false` where the general engine would
/// report an issue; the plan's caller then throws the record's partial output away.
struct Writer<Output: WriterOutput> {
    let bytes: UnsafeBufferPointer<UInt8>
    let nodes: UnsafeBufferPointer<JSONTape.Node>
    let slots: UnsafeBufferPointer<Int32>
    let plan: PlanTables.Pointers
    /// The plan, for its converters: held without a count (the caller holds it for the record).
    unowned(unsafe) let owner: FastPlan
    let omittingNulls: Bool
    let memo: TransformerMemo?
    /// The calling thread's scratch, whose `fanOuts` hold the nodes of the record's fan-outs.
    unowned(unsafe) let scratch: TapeScratch
    /// With direct tags: the schema's nodes (`nil`: the plan writes JSON), which each object
    /// follows field by field (`FastPlan.directTags`), and its names.
    var tagNodes: UnsafeBufferPointer<ValueSchema.Node>? = nil
    var tagNames = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    /// The direct tags' encoding, for the values the plan does not write itself (held by the
    /// record mapper for the record).
    unowned(unsafe) var direct: DirectTags? = nil

    /// Whether this writer writes tags (then `tagNodes`, `tagNames` and `direct` are set).
    @inline(__always)
    var tagged: Bool { Output.writesTags }

    /// What a key path found: one node, nothing (missing or null), or the values of a key
    /// applied to an array (a fan-out: one node per element, -1 where an element has none).
    enum Found {
        case node(Int32)
        case missing
        /// The nodes are `scratch.fanOuts[range]`.
        case fanOut(Range<Int>)

        var isMissing: Bool {
            if case .missing = self { true } else { false }
        }
    }

    /// Writes the model object of plan object `index` from the frame `frame` (-1: a `null`
    /// source, where every key path is missing); with direct tags, as the struct of node
    /// `structure`.
    func object(_ index: Int32, frame: Int32, structure: Int32 = 0, into out: inout OutputBytes) -> Bool {
        let object = plan.objects[Int(index)]
        var first = true
        // With direct tags: where the member count goes, the members written, the first field.
        var countAt = 0
        var members: UInt32 = 0
        var fields = 0
        if tagged, let tagNodes {
            out.append(ValueTag.object.rawValue)
            countAt = out.count
            out.appendWord32(0)
            fields = Int(tagNodes[Int(structure)].first) - Int(object.first)
        } else {
            out.append(UInt8(ascii: "{"))
        }
        for position in Int(object.first)..<Int(object.first + object.count) {
            let property = plan.properties[position]
            let field = Int32(truncatingIfNeeded: fields + position)
            // The usual entry, one key of the frame and no transformer: found and written
            // without a walk.
            if property.single >= 0, property.transformer < 0, frame >= 0 {
                let child = slots[Int(nodes[Int(frame)].first) + Int(property.single)]
                if child >= 0, !nodes[Int(child)].kind.is(.null) {
                    key(property, field: field, first: &first, members: &members, into: &out)
                    guard write(node: child, as: property, field: field, into: &out) else { return false }
                    continue
                }
            }
            var found = Found.missing
            // A keyed selection: its object, put together from the values' texts.
            var transformed: JSONValue?
            if property.selectionCount > 0 {
                guard let selected = selection(property, from: frame, memo: memo) else { return false }
                if selected == .null { found = .missing } else { (found, transformed) = (.node(frame), selected) }
            } else if property.kind != .unset, frame >= 0 {
                guard let lookedUp = value(of: property, from: frame) else { return false }
                found = lookedUp
            }
            // A transformer answers for a present value; its null is a missing value.
            if property.transformer >= 0, !found.isMissing, property.selectionCount == 0 {
                guard let memo, let output = transform(found, with: plan.transformers[Int(property.transformer)], memo)
                else { return false }
                if output == .null { found = .missing } else { transformed = output }
            }
            if case .missing = found {
                // A required value is an issue; an optional one takes its default, or stays unset.
                guard property.isOptional else { return false }
                if property.defaultStart < 0, omittingNulls { continue }
                key(property, field: field, first: &first, members: &members, into: &out)
                if property.defaultStart < 0 {
                    if tagged { out.append(ValueTag.null.rawValue) } else { out.append("null") }
                } else {
                    let text = UnsafeBufferPointer(
                        rebasing: plan.bytes[
                            Int(property.defaultStart)..<Int(property.defaultStart + property.defaultCount)])
                    guard emit(json: text, field: field, into: &out) else { return false }
                }
                continue
            }
            key(property, field: field, first: &first, members: &members, into: &out)
            if let transformed {
                if property.plainAnswer != 0, writesPlain(transformed, as: property, field: field, into: &out) {
                    continue
                }
                guard convert(transformed, as: property, field: field, into: &out) else { return false }
            } else {
                guard write(found, as: property, field: field, into: &out) else { return false }
            }
        }
        if tagged {
            out.patchWord32(members, at: countAt)
        } else {
            out.append(UInt8(ascii: "}"))
        }
        return true
    }

    /// Writes a property's key: JSON's `"name":` (after a comma but for the first), or with
    /// direct tags its field's name (and counts the member).
    @inline(__always)
    private func key(
        _ property: PlanTables.Property, field: Int32, first: inout Bool, members: inout UInt32,
        into out: inout OutputBytes
    ) {
        if tagged, let tagNodes {
            members += 1
            let node = tagNodes[Int(field)]
            out.appendWord32(UInt32(node.nameCount))
            out.append(tagNames, Int(node.nameStart), Int(node.nameCount))
        } else {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(plan.bytes, Int(property.keyStart), Int(property.keyCount))
        }
    }

    /// Writes a value given as JSON text: as it is, or with direct tags, its tags by the node
    /// of `field` (the encoding's own reading, for what the plan does not write itself);
    /// `false` when that fails.
    func emit(json text: UnsafeBufferPointer<UInt8>, field: Int32, into out: inout OutputBytes) -> Bool {
        guard !text.isEmpty else { return false }
        guard tagged, let direct else {
            out.append(text, 0, text.count)
            return true
        }
        scratch.tags.removeAll(keepingCapacity: true)
        guard direct.encoding.encodeValue(text, node: Int(field), into: &scratch.tags), !scratch.tags.isEmpty else {
            return false
        }
        scratch.tags.withUnsafeBufferPointer { out.append($0, 0, $0.count) }
        return true
    }

    /// `emit(json:field:into:)` of a literal.
    private func emit(_ text: StaticString, field: Int32, into out: inout OutputBytes) -> Bool {
        emit(json: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), field: field, into: &out)
    }

    /// What the transformer answers for a present value: an object, array or string goes to a
    /// transformer that takes text as its span of the record (a Lua script reads it through a
    /// view, and the value is never built; what the script reads of it, repeats and depth
    /// included, it checks as it reads, as for the general engine's value); anything else as
    /// its value. `nil` where the general engine would report an issue.
    private func transform(_ found: Found, with call: PlanTables.Call, _ memo: TransformerMemo) -> JSONValue? {
        if case .node(let index) = found, let transform = call.text, let text = textSpan(of: nodes[Int(index)]) {
            return try? memo.call(transform, call.reference, text: text)
        }
        // A value that repeats a key is the general engine's `duplicate key` error (`nil`).
        guard let input = value(of: found) else { return nil }
        return try? memo.call(call.transform, call.reference, input)
    }

    /// The value of a keyed selection, after the entry's transformer (null: none): the object
    /// of each key's value, put together from the values' texts in the record, each the first
    /// of its key paths that finds one, else `null`. A Lua transformer reads that text through a
    /// view; the others get it parsed. `nil` where the general engine would report an issue (a
    /// key path it cannot read, a failing transformer) or builds the value otherwise (a fan-out).
    private func selection(_ property: PlanTables.Property, from frame: Int32, memo: TransformerMemo?) -> JSONValue? {
        scratch.selection.removeAll(keepingCapacity: true)
        scratch.selection.append(UInt8(ascii: "{"))
        for offset in 0..<Int(property.selectionCount) {
            let selected = plan.selections[Int(property.selectionStart) + offset]
            if offset > 0 { scratch.selection.append(UInt8(ascii: ",")) }
            scratch.selection.append(
                contentsOf: UnsafeBufferPointer(
                    rebasing: plan.bytes[Int(selected.keyStart)..<Int(selected.keyStart + selected.keyCount)]))
            var found = Found.missing
            if frame >= 0 {
                guard let lookedUp = first(selected.pathsStart, selected.pathsCount, from: frame) else { return nil }
                found = lookedUp
            }
            switch found {
            case .missing:
                scratch.selection.append(contentsOf: "null".utf8)
            case .fanOut:
                return nil
            case .node(let index):
                let node = nodes[Int(index)]
                // A string's node is its contents: its quotes are either side.
                let quoted = node.kind.is(.string) ? 1 : 0
                scratch.selection.append(
                    contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(node.start) - quoted..<Int(node.end) + quoted]))
            }
        }
        scratch.selection.append(UInt8(ascii: "}"))
        return scratch.selection.withUnsafeBufferPointer { text -> JSONValue? in
            // A value built here is checked whole, as the general engine checks each selected
            // value (a Lua script checks what it reads of the text).
            func built() -> JSONValue? {
                guard let value = try? JSONParser.parse(text, demand: .everything), !value.hasDuplicateKeys else {
                    return nil
                }
                return value
            }
            guard property.transformer >= 0 else { return built() }
            guard let memo else { return nil }
            let call = plan.transformers[Int(property.transformer)]
            if let transform = call.text { return try? memo.call(transform, call.reference, copying: text) }
            guard let input = built() else { return nil }
            return try? memo.call(call.transform, call.reference, input)
        }
    }

    /// What a property's key paths find from `frame`: one key of the frame (the usual entry)
    /// without a walk, else the first of its paths that finds a value; `nil` where one cannot
    /// be read (the general engine's issue).
    func value(of property: PlanTables.Property, from frame: Int32) -> Found? {
        guard property.single >= 0 else { return first(property.pathsStart, property.pathsCount, from: frame) }
        let child = slots[Int(nodes[Int(frame)].first) + Int(property.single)]
        return child >= 0 && !nodes[Int(child)].kind.is(.null) ? .node(child) : .missing
    }

    /// The first of the `count` key paths from `start` in `plan.paths` that finds a value from
    /// `frame` (`.missing` when none does); `nil` where one cannot be read.
    func first(_ start: Int32, _ count: Int32, from frame: Int32) -> Found? {
        var found = Found.missing
        for offset in 0..<Int(count) {
            guard let lookedUp = find(plan.paths[Int(start) + offset], from: frame) else { return nil }
            found = lookedUp
            if case .missing = found { continue }
            break
        }
        return found
    }

    /// Follows a key path from a frame as `SourceLookup` follows its keys; `nil`
    /// where the general lookup reports the path as invalid (a key of a string, say).
    func find(_ path: PlanTables.Path, from frame: Int32) -> Found? {
        var current = Found.node(frame)
        for offset in 0..<Int(path.stepsCount) {
            let step = Int(plan.steps[Int(path.stepsStart) + offset])
            switch current {
            case .missing:
                return .missing
            case .node(let index):
                let node = nodes[Int(index)]
                switch node.kind {
                case .frame:
                    let child = slots[Int(node.first) + step]
                    current = child < 0 ? .missing : .node(child)
                case .list:
                    guard let elements = member(step, ofEach: node) else { return nil }
                    current = .fanOut(elements)
                case .null:
                    return .missing
                default:
                    return nil
                }
            case .fanOut(let elements):
                let start = scratch.fanOuts.count
                for position in elements {
                    let element = scratch.fanOuts[position]
                    guard element >= 0 else {
                        scratch.fanOuts.append(-1)
                        continue
                    }
                    // Keys after a fan-out read each element it made: an object, or null.
                    let node = nodes[Int(element)]
                    if node.kind.is(.frame) {
                        scratch.fanOuts.append(slots[Int(node.first) + step])
                    } else if node.kind.is(.null) {
                        scratch.fanOuts.append(-1)
                    } else {
                        return nil
                    }
                }
                current = .fanOut(start..<scratch.fanOuts.count)
            }
        }
        if case .node(let index) = current, nodes[Int(index)].kind.is(.null) { return .missing }
        return current
    }

    /// The record's text of a value a transformer that takes text is given as it is written: an
    /// object or array (read through a view), or a string with its quotes (its escapes decoded
    /// as the script's string is made, never built as a value first); `nil` for the others,
    /// whose values are cheaper to give.
    func textSpan(of node: JSONTape.Node) -> UnsafeBufferPointer<UInt8>? {
        switch node.kind {
        case .frame, .list, .objectSpan, .arraySpan:
            return UnsafeBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)])
        case .string:
            return UnsafeBufferPointer(rebasing: bytes[Int(node.start) - 1..<Int(node.end) + 1])
        case .null, .false, .true, .number:
            return nil
        }
    }

    /// The value a key path found, built as the general engine builds it; `nil` for nothing,
    /// and for an object or array the scan kept only parts of.
    func value(of found: Found) -> JSONValue? {
        switch found {
        case .missing: return nil
        case .node(let index): return JSONTape.value(of: nodes[Int(index)], in: bytes)
        case .fanOut(let elements):
            var values: [JSONValue] = []
            values.reserveCapacity(elements.count)
            for position in elements {
                let element = scratch.fanOuts[position]
                guard element >= 0 else {
                    values.append(.null)
                    continue
                }
                guard let value = JSONTape.value(of: nodes[Int(element)], in: bytes) else { return nil }
                values.append(value)
            }
            return .array(values)
        }
    }

    /// The node of key `step` in each element of a list (-1 for an object without it, or a null
    /// element), added to the scratch's fan-outs: their range there; `nil` when an element is
    /// neither an object nor null (the general lookup reports it as a key it cannot read).
    private func member(_ step: Int, ofEach list: JSONTape.Node) -> Range<Int>? {
        let start = scratch.fanOuts.count
        for offset in 0..<Int(list.count) {
            let node = nodes[Int(slots[Int(list.first) + offset])]
            if node.kind.is(.frame) {
                scratch.fanOuts.append(slots[Int(node.first) + step])
            } else if node.kind.is(.null) {
                scratch.fanOuts.append(-1)
            } else {
                return nil
            }
        }
        return start..<scratch.fanOuts.count
    }

    /// Writes a present value as the property's type (with direct tags, as field `field`).
    private func write(_ found: Found, as property: PlanTables.Property, field: Int32, into out: inout OutputBytes)
        -> Bool
    {
        switch found {
        case .missing:
            return false
        case .fanOut(let elements):
            // Objects read through a fan-out are the general engine's (`target` is no conversion).
            if property.kind == .object || property.kind == .objects { return false }
            if property.kind == .strings, writesStrings(elements, into: &out) { return true }
            guard let values = value(of: found) else { return false }
            return convert(values, as: property, field: field, into: &out)
        case .node(let index):
            return write(node: index, as: property, field: field, into: &out)
        }
    }

    /// Writes the value at a node as the property's type (with direct tags, as field `field`).
    private func write(node index: Int32, as property: PlanTables.Property, field: Int32, into out: inout OutputBytes)
        -> Bool
    {
        let node = nodes[Int(index)]
        switch property.kind {
        case .string where node.kind.is(.string):
            return writeString(node, into: &out)
        case .int where node.kind.is(.number) || (!property.strict && node.kind.is(.string) && !node.escaped):
            if writesInteger(node, into: &out) { return true }
        case .decimal where node.kind.is(.number):
            if writesDecimal(node, into: &out) { return true }
        case .date where node.kind.is(.string) && !node.escaped && copiesDate(node):
            return writeDate(
                quoted: UnsafeBufferPointer(rebasing: bytes[(Int(node.start) - 1)..<(Int(node.start) + 21)]),
                field: field, into: &out)
        case .formattedDate where node.kind.is(.string) && !node.escaped:
            if let written = writesFormattedDate(node, as: property, field: field, into: &out) { return written }
        case .url where node.kind.is(.string) && !node.escaped && copiesURL(node):
            if tagged {
                out.appendTagged(.string, bytes, Int(node.start), Int(node.end - node.start))
            } else {
                out.append(bytes, Int(node.start) - 1, Int(node.end - node.start) + 2)
            }
            return true
        case .strings where node.kind.is(.arraySpan):
            if writesStrings(in: node, into: &out) { return true }
        case .bool where node.kind.is(.true) || node.kind.is(.false):
            if tagged {
                out.append(node.kind.is(.true) ? ValueTag.yes.rawValue : ValueTag.no.rawValue)
            } else {
                out.append(bytes, Int(node.start), Int(node.end - node.start))
            }
            return true
        case .object:
            guard node.kind.is(.frame) else { return false }
            return object(property.target, frame: index, structure: field, into: &out)
        case .objects:
            guard node.kind.is(.list) else { return false }
            // With direct tags, each element is the struct of the list's element node.
            let element = tagged ? tagNodes.unsafelyUnwrapped[Int(field)].first : 0
            if tagged {
                out.append(ValueTag.array.rawValue)
                out.appendWord32(UInt32(node.count))
            } else {
                out.append(UInt8(ascii: "["))
            }
            for offset in 0..<Int(node.count) {
                if offset > 0, !tagged { out.append(UInt8(ascii: ",")) }
                let item = slots[Int(node.first) + offset]
                switch nodes[Int(item)].kind {
                case .frame:
                    guard object(property.target, frame: item, structure: element, into: &out) else { return false }
                // A null element: the general engine keeps it null, or says it is one.
                default: return false
                }
            }
            if !tagged { out.append(UInt8(ascii: "]")) }
            return true
        case .general where property.lookup >= 0:
            if let written = writesLookup(node, as: property, field: field, into: &out) { return written }
        default:
            break
        }
        guard let value = JSONTape.value(of: node, in: bytes) else { return false }
        return convert(value, as: property, field: field, into: &out)
    }

    /// Writes a transformer's answer that is of its property's own kind as the general
    /// conversion and writer would (`Property.plainAnswer`); `false`, writing nothing, for any
    /// other answer, which converts.
    private func writesPlain(
        _ value: JSONValue, as property: PlanTables.Property, field: Int32, into out: inout OutputBytes
    ) -> Bool {
        switch (property.plainAnswer, value) {
        case (1, .string(let string)):
            scratch.text.removeAll(keepingCapacity: true)
            JSONWriter.writeString(string, into: &scratch.text)
        case (2, .integer(let integer)):
            scratch.text.removeAll(keepingCapacity: true)
            scratch.text.append(contentsOf: String(integer).utf8)
        case (3, .bool(let flag)):
            return emit(flag ? "true" : "false", field: field, into: &out)
        case (4, .double(let double)):
            scratch.text.removeAll(keepingCapacity: true)
            scratch.text.append(contentsOf: JSONWriter.number(double).utf8)
        case (5, .array(let elements)):
            scratch.text.removeAll(keepingCapacity: true)
            scratch.text.append(UInt8(ascii: "["))
            for index in elements.indices {
                // An element of another kind converts (or fails) the general way.
                guard case .string(let string) = elements[index] else { return false }
                if index > 0 { scratch.text.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(string, into: &scratch.text)
            }
            scratch.text.append(UInt8(ascii: "]"))
        case (5, .object(let object)) where object.isKindlessEmpty:
            // An empty Lua table a script left unmarked: the empty array, as the conversion reads it.
            return emit("[]", field: field, into: &out)
        default:
            return false
        }
        return scratch.text.withUnsafeBufferPointer { emit(json: $0, field: field, into: &out) }
    }

    /// The general conversion, and the general writer: used for every value the plan does not copy.
    private func convert(
        _ value: JSONValue, as property: PlanTables.Property, field: Int32, into out: inout OutputBytes
    ) -> Bool {
        let conversion = plan.conversions[Int(property.target)]
        var failures: [ConversionFailure] = []
        guard let found = conversion.found(value) else {
            // No row or an empty cell: a missing value (an optional entry's default or null).
            return conversion.findsNoCell(value) ? writesMissing(property, field: field, into: &out) : false
        }
        let input = conversion.valueMap.map { $0.map(found) } ?? found
        let converted = (conversion.strict ? owner.strictConverter : owner.converter).convert(
            input, to: conversion.type, dateFormat: conversion.dateFormats, failures: &failures)
        // A value mapped to null leaves the property unset, which `--omit-nulls` leaves out:
        // the general engine's (the key is written already).
        guard failures.isEmpty, converted != .null else { return false }
        var text: [UInt8] = []
        JSONWriter.write(converted, into: &text, omittingNulls: omittingNulls)
        return text.withUnsafeBufferPointer { emit(json: $0, field: field, into: &out) }
    }

    /// Writes a date the property's `@dateFormat` reads from the string's bytes, quoted as
    /// the writer writes a date, and returns whether that went; `nil`, writing nothing, when it
    /// reads none there.
    private func writesFormattedDate(
        _ node: JSONTape.Node, as property: PlanTables.Property, field: Int32, into out: inout OutputBytes
    ) -> Bool? {
        let text = UnsafeBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)])
        guard let date = plan.conversions[Int(property.target)].dateFormats?.date(fromBytes: text) else {
            return nil
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: JSONWriter.iso8601Capacity + 2) { buffer in
            buffer[0] = UInt8(ascii: "\"")
            let count = JSONWriter.writeISO8601(date, to: UnsafeMutableBufferPointer(rebasing: buffer[1...]))
            buffer[count + 1] = UInt8(ascii: "\"")
            return writeDate(quoted: UnsafeBufferPointer(rebasing: buffer[..<(count + 2)]), field: field, into: &out)
        }
    }

    /// Writes a date the writer wrote (its text, quoted): as it is, or with direct tags, as
    /// `ValueEncoder` reads it into a date's field — its microseconds, or its text when Python's
    /// `datetime` cannot hold it — and into any other field.
    private func writeDate(quoted text: UnsafeBufferPointer<UInt8>, field: Int32, into out: inout OutputBytes) -> Bool {
        guard tagged, let tagNodes, tagNodes[Int(field)].kind == .date else {
            return emit(json: text, field: field, into: &out)
        }
        let instant = UnsafeBufferPointer(rebasing: text[1..<(text.count - 1)])
        if let micros = InstantText.microseconds(iso8601: instant), ValueSchema.isPythonDate(micros) {
            out.append(ValueTag.date.rawValue)
            out.appendWord64(UInt64(bitPattern: micros))
        } else {
            out.appendTagged(.string, instant, 0, instant.count)
        }
        return true
    }

    /// Writes the strings of a fan-out as an array; returns `false`, writing nothing, when an
    /// element is anything but a string.
    private func writesStrings(_ elements: Range<Int>, into out: inout OutputBytes) -> Bool {
        for position in elements {
            let element = scratch.fanOuts[position]
            if element < 0 || !nodes[Int(element)].kind.is(.string) { return false }
        }
        let mark = out.count
        if tagged {
            out.append(ValueTag.array.rawValue)
            out.appendWord32(UInt32(elements.count))
        } else {
            out.append(UInt8(ascii: "["))
        }
        for position in elements {
            if position > elements.lowerBound, !tagged { out.append(UInt8(ascii: ",")) }
            guard writeString(nodes[Int(scratch.fanOuts[position])], into: &out) else {
                out.count = mark
                return false
            }
        }
        if !tagged { out.append(UInt8(ascii: "]")) }
        return true
    }

    /// Writes an array kept whole by the scan whose elements are all strings; returns
    /// `false`, writing nothing, when one is anything else.
    private func writesStrings(in node: JSONTape.Node, into out: inout OutputBytes) -> Bool {
        let mark = out.count
        if tagged {
            out.append(ValueTag.array.rawValue)
            out.appendWord32(0)
        } else {
            out.append(UInt8(ascii: "["))
        }
        var count: UInt32 = 0
        let allStrings = JSONTape.forEachString(in: node, bytes) { string in
            if count > 0, !tagged { out.append(UInt8(ascii: ",")) }
            count += 1
            return writeString(string, into: &out)
        }
        guard allStrings else {
            out.count = mark
            return false
        }
        if tagged { out.patchWord32(count, at: mark + 1) } else { out.append(UInt8(ascii: "]")) }
        return true
    }

    /// Writes a whole number of at most 18 digits (a number, or a string holding only its
    /// digits and maybe a `-`) as the writer writes the Int it converts to; returns `false`,
    /// writing nothing, for anything else.
    private func writesInteger(_ node: JSONTape.Node, into out: inout OutputBytes) -> Bool {
        writesInteger(bytes, Int(node.start), Int(node.end), into: &out)
    }

    /// `writesInteger(_:into:)` of the bytes `bytes[start..<end]` (a table's cell, say).
    @inline(__always)
    func writesInteger(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, into out: inout OutputBytes)
        -> Bool
    {
        var position = start
        guard position < end else { return false }
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < end, end - position <= 18 else { return false }
        let digitsStart = position
        var magnitude: UInt64 = 0
        while position < end {
            let digit = bytes[position] &- 48
            guard digit < 10 else { return false }
            magnitude = magnitude &* 10 &+ UInt64(digit)
            position += 1
        }
        if tagged {
            out.append(ValueTag.integer.rawValue)
            let value = negative ? 0 &- Int64(magnitude) : Int64(magnitude)
            out.appendWord64(UInt64(bitPattern: value))
            return true
        }
        // Digits without a leading zero are written as they are (but `-0` is `0`).
        if bytes[digitsStart] != UInt8(ascii: "0") {
            out.append(bytes, start, end - start)
        } else {
            out.appendInteger(magnitude, negative: negative && magnitude != 0)
        }
        return true
    }

    /// Writes a number as the writer writes the Decimal it converts to, when it is written
    /// without an exponent in at most 38 digits: as it came, which is that Decimal's text
    /// (JSON's grammar has no `+`, no leading zero and no bare point); returns `false`, writing
    /// nothing, for any other number.
    private func writesDecimal(_ node: JSONTape.Node, into out: inout OutputBytes) -> Bool {
        let start = Int(node.start)
        let end = Int(node.end)
        var position = start
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        var digits = 0
        while position < end {
            let byte = bytes[position]
            if byte &- 48 < 10 {
                digits += 1
            } else if byte != UInt8(ascii: ".") {
                return false  // an exponent
            }
            position += 1
        }
        guard digits <= ExactDecimal.maximumDigits else { return false }
        if tagged {
            out.append(ValueTag.decimal.rawValue)
            out.appendWord32(UInt32(end - start))
        }
        out.append(bytes, start, end - start)
        return true
    }

    /// Whether a string is a date the general conversion reads and writes back unchanged:
    /// `YYYY-MM-DDTHH:MM:SSZ`, a real day of a year from 1 to 9999, a time within the day.
    func copiesDate(_ node: JSONTape.Node) -> Bool {
        let start = Int(node.start)
        guard Int(node.end) - start == 20 else { return false }
        let (dash, colon) = (UInt8(ascii: "-"), UInt8(ascii: ":"))
        guard bytes[start + 4] == dash, bytes[start + 7] == dash, bytes[start + 10] == UInt8(ascii: "T"),
            bytes[start + 13] == colon, bytes[start + 16] == colon, bytes[start + 19] == UInt8(ascii: "Z")
        else { return false }
        // Digits everywhere but at the separators (bit n set: offset n is a separator).
        let separators = 1 << 4 | 1 << 7 | 1 << 10 | 1 << 13 | 1 << 16
        for offset in 0..<19 where separators >> offset & 1 == 0 {
            guard bytes[start + offset] &- 48 < 10 else { return false }
        }
        func field(_ offset: Int, _ count: Int) -> Int {
            var value = 0
            for position in offset..<offset + count { value = value * 10 + Int(bytes[start + position] &- 48) }
            return value
        }
        let year = field(0, 4)
        let month = field(5, 2)
        let day = field(8, 2)
        return year >= 1 && (1...12).contains(month) && day >= 1 && day <= DateParser.daysIn(month: month, year: year)
            && field(11, 2) <= 23 && field(14, 2) <= 59 && field(17, 2) <= 59
    }

    /// Whether a string is a URL that Foundation reads as written and gives back unchanged:
    /// `http://` or `https://`, a host of lowercase letters, digits, dots and dashes (no
    /// port, no user), then a path, a query and a fragment of RFC 3986's unreserved
    /// characters, sub-delimiters, `:`, `@`, `/`, `?` and `%` with two hexadecimal digits (a
    /// second `#` ends it). Anything else goes through Foundation, as in the general engine.
    private func copiesURL(_ node: JSONTape.Node) -> Bool {
        var position = Int(node.start)
        let end = Int(node.end)
        func take(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard end - position >= count else { return false }
            for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] { return false }
            position += count
            return true
        }
        guard take("https://") || take("http://") else { return false }
        let hostStart = position
        while position < end {
            let byte = bytes[position]
            guard byte &- 97 < 26 || byte &- 48 < 10 || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") else {
                break
            }
            position += 1
        }
        guard position > hostStart else { return false }
        // The host ends the authority: a path, a query, a fragment or nothing follows it.
        if position < end {
            let next = bytes[position]
            guard next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#") else {
                return false
            }
        }
        var inFragment = false
        while position < end {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                continue
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
                UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
                UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
                UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
                continue
            case UInt8(ascii: "#"):
                guard !inFragment else { return false }
                inFragment = true
            case UInt8(ascii: "%"):
                guard end - position >= 2, bytes[position].isHexDigit, bytes[position + 1].isHexDigit else {
                    return false
                }
                position += 2
            default:
                return false
            }
        }
        return true
    }

    /// A string as the writer writes it: copied with its quotes when it has no escapes (the
    /// writer escapes only what JSON requires, which such a string cannot hold), else decoded
    /// and written again.
    private func writeString(_ node: JSONTape.Node, into out: inout OutputBytes) -> Bool {
        guard node.escaped else {
            if tagged {
                out.appendTagged(.string, bytes, Int(node.start), Int(node.end - node.start))
            } else {
                out.append(bytes, Int(node.start) - 1, Int(node.end - node.start) + 2)
            }
            return true
        }
        writeUnescaping(node, into: &out)
        return true
    }

    /// Writes a string that holds escapes (checked by the scan) as the writer writes the text
    /// they stand for: each escape decoded (a `\\u` pair to one character) and written again as
    /// the writer spells it, the runs between escapes copied; no `String`, no allocation.
    private func writeUnescaping(_ node: JSONTape.Node, into out: inout OutputBytes) {
        // With direct tags: the text's tag, its length when written, each character as it is.
        let raw = tagged
        let lengthAt = out.count + 1
        if raw {
            out.append(ValueTag.string.rawValue)
            out.appendWord32(0)
        } else {
            out.append(UInt8(ascii: "\""))
        }
        appendUnescaped(node, raw: raw, into: &out)
        if raw {
            out.patchWord32(UInt32(out.count - lengthAt - 4), at: lengthAt)
        } else {
            out.append(UInt8(ascii: "\""))
        }
    }

    /// Appends the text a string that holds escapes stands for: each escape decoded (a `\\u`
    /// pair to one character), as its UTF-8 when `raw`, else written again as the writer spells
    /// it; the runs between escapes copied. Read byte by byte: a text may be mostly escapes
    /// (`\\u` after `\\u`).
    func appendUnescaped(_ node: JSONTape.Node, raw: Bool, into out: inout OutputBytes) {
        var position = Int(node.start)
        var runStart = position
        let end = Int(node.end)
        while position < end {
            guard bytes[position] == UInt8(ascii: "\\") else {
                position += 1
                continue
            }
            appendEscape(at: &position, after: runStart, raw: raw, into: &out)
            runStart = position
        }
        out.append(bytes, runStart, end - runStart)
    }

    /// `appendUnescaped(_:raw:into:)` as UTF-8, each escape found with `memchr`: for a text whose
    /// escapes are few and far apart (a lookup key's `\\/` and `\\"`).
    func appendUnescapedSeeking(_ node: JSONTape.Node, into out: inout OutputBytes) {
        var position = Int(node.start)
        var runStart = position
        let end = Int(node.end)
        while position < end {
            let from = bytes.baseAddress! + position
            guard let found = memchr(from, Int32(UInt8(ascii: "\\")), end - position) else { break }
            position += UnsafeRawPointer(found) - UnsafeRawPointer(from)
            appendEscape(at: &position, after: runStart, raw: true, into: &out)
            runStart = position
        }
        out.append(bytes, runStart, end - runStart)
    }

    /// Appends the run from `runStart` up to the escape at `position`, then the character the
    /// escape stands for (`appendUnescaped`), and moves `position` past the escape.
    @inline(__always)
    private func appendEscape(at position: inout Int, after runStart: Int, raw: Bool, into out: inout OutputBytes) {
        if position > runStart { out.append(bytes, runStart, position - runStart) }
        let scalar: UInt32
        if bytes[position + 1] == UInt8(ascii: "u") {
            let unit = hexValue(at: position + 2)
            position += 6
            if unit & 0xFC00 == 0xD800 {  // a high surrogate, inline (the check across modules is a call)
                scalar = JSONEscape.scalar(high: unit, low: hexValue(at: position + 2))?.value ?? 0xFFFD
                position += 6
            } else {
                scalar = unit
            }
        } else {
            scalar = JSONEscape.character(after: bytes[position + 1])?.value ?? 0xFFFD
            position += 2
        }
        write(scalar: scalar, raw: raw, into: &out)
    }

    /// The four hexadecimal digits at `position` (checked by the scan) as a number, read as one
    /// word: a digit's value is its low four bits, plus 9 for a letter (whose bit 6 is set), in
    /// each byte at once; why: texts written with `\\u` escapes hold one every three bytes
    /// (a loop of four bounds-checked reads cost 56 instructions an escape).
    @inline(__always)
    private func hexValue(at position: Int) -> UInt32 {
        let word = UInt32(littleEndian: UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt32.self))
        let digits = (word & 0x0F0F_0F0F) &+ ((word >> 6) & 0x0101_0101) &* 9
        return (digits & 0xFF) << 12 | (digits >> 8 & 0xFF) << 8 | (digits >> 16 & 0xFF) << 4 | digits >> 24
    }

    /// Writes one decoded character as the writer writes it in a string (`raw`: as UTF-8, never
    /// escaped); nothing for a surrogate or a value past U+10FFFF, which is no character.
    @inline(__always)
    private func write(scalar value: UInt32, raw: Bool, into out: inout OutputBytes) {
        guard value < 0x80 else { return out.appendUTF8(value) }
        guard !raw, JSONWriter.needsEscape(UInt8(value)) else { return out.append(UInt8(value)) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { buffer in
            let count = JSONWriter.writeEscape(of: UInt8(value), to: buffer.baseAddress!)
            out.append(UnsafeBufferPointer(buffer), 0, count)
        }
    }
}

extension JSONTape.Kind {
    /// Whether the kind is `kind`, by a match of cases (`==` across modules goes through a
    /// protocol witness, on the hot path).
    @inline(__always)
    func `is`(_ kind: JSONTape.Kind) -> Bool {
        switch (self, kind) {
        case (.null, .null), (.false, .false), (.true, .true), (.number, .number), (.string, .string),
            (.objectSpan, .objectSpan), (.arraySpan, .arraySpan), (.frame, .frame), (.list, .list):
            true
        default: false
        }
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII hexadecimal digit.
    fileprivate var isHexDigit: Bool {
        self &- 48 < 10 || (self | 0x20) &- 97 < 6
    }
}
