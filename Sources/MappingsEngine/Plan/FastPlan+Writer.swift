import MappingsCompiler
import MappingsJSON
import MappingsModel

/// Runs an `ObjectPlan` over one scanned record: the general engine's lookup, conversion and
/// output rules, on tape nodes. Every function returns `false` where the general engine would
/// report an issue; the plan's caller then throws the record's partial output away.
struct Writer {
    let bytes: UnsafeBufferPointer<UInt8>
    let tape: JSONTape
    let converter: Converter
    let omittingNulls: Bool

    init(bytes: UnsafeBufferPointer<UInt8>, tape: JSONTape, converter: Converter, omittingNulls: Bool) {
        self.bytes = bytes
        self.tape = tape
        self.converter = converter
        self.omittingNulls = omittingNulls
    }

    /// What a key path found: one node, nothing (missing or null), or the values of a key
    /// applied to an array (a fan-out: one node per element, -1 where an element has none).
    enum Found {
        case node(Int32)
        case missing
        case fanOut([Int32])
    }

    /// Writes the model object `plan` builds from the frame `frame` (-1: a `null` source,
    /// where every key path is missing).
    func object(_ plan: ObjectPlan, frame: Int32, into out: inout [UInt8]) -> Bool {
        out.append(UInt8(ascii: "{"))
        var first = true
        for slot in plan.keys.indices {
            guard let property = plan.properties[slot] else {
                if omittingNulls { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(contentsOf: plan.keys[slot])
                JSONWriter.append("null", to: &out)
                continue
            }
            let found: Found
            if frame < 0 {
                found = .missing
            } else {
                guard let lookedUp = find(property.steps, from: frame) else { return false }
                found = lookedUp
            }
            if case .missing = found {
                // A required value is an issue; an optional one takes its default, or stays unset.
                guard property.isOptional else { return false }
                guard let text = property.defaultText else {
                    if omittingNulls { continue }
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    out.append(contentsOf: plan.keys[slot])
                    JSONWriter.append("null", to: &out)
                    continue
                }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(contentsOf: plan.keys[slot])
                out.append(contentsOf: text)
                continue
            }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: plan.keys[slot])
            guard write(found, as: property, into: &out) else { return false }
        }
        out.append(UInt8(ascii: "}"))
        return true
    }

    /// Follows a key path's indexes from a frame as `SourceLookup` follows the keys; `nil`
    /// where the general lookup reports the path as invalid (a key of a string, say).
    func find(_ steps: [Int32], from frame: Int32) -> Found? {
        var current = Found.node(frame)
        for step in steps {
            switch current {
            case .missing:
                return .missing
            case .node(let index):
                let node = tape.nodes[Int(index)]
                switch node.kind {
                case .frame:
                    let child = tape.slots[Int(node.first) + Int(step)]
                    current = child < 0 ? .missing : .node(child)
                case .list:
                    current = .fanOut(member(step, ofEach: node))
                case .null:
                    return .missing
                default:
                    return nil
                }
            case .fanOut(let elements):
                current = .fanOut(
                    elements.map { element in
                        guard element >= 0 else { return -1 }
                        let node = tape.nodes[Int(element)]
                        guard node.kind == .frame else { return -1 }
                        return tape.slots[Int(node.first) + Int(step)]
                    })
            }
        }
        if case .node(let index) = current, tape.nodes[Int(index)].kind == .null { return .missing }
        return current
    }

    /// The node of key `step` in each element of a list (-1 for an element that is no object).
    private func member(_ step: Int32, ofEach list: JSONTape.Node) -> [Int32] {
        var members: [Int32] = []
        members.reserveCapacity(Int(list.count))
        for offset in 0..<Int(list.count) {
            let node = tape.nodes[Int(tape.slots[Int(list.first) + offset])]
            members.append(node.kind == .frame ? tape.slots[Int(node.first) + Int(step)] : -1)
        }
        return members
    }

    /// Writes a present value as the property's type.
    private func write(_ found: Found, as property: PropertyPlan, into out: inout [UInt8]) -> Bool {
        switch found {
        case .missing:
            return false
        case .fanOut(let elements):
            var values: [JSONValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard element >= 0 else {
                    values.append(.null)
                    continue
                }
                guard let value = JSONTape.value(of: tape.nodes[Int(element)], in: bytes) else { return false }
                values.append(value)
            }
            return convert(.array(values), as: property, into: &out)
        case .node(let index):
            let node = tape.nodes[Int(index)]
            switch property.conversion {
            case .string where node.kind == .string:
                writeString(node, into: &out)
                return true
            case .int where node.kind == .number && copiesAsInteger(node):
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)]))
                return true
            case .decimal where node.kind == .number && writesDecimal(node, into: &out):
                return true
            case .bool where node.kind == .true || node.kind == .false:
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)]))
                return true
            case .object(let nested):
                guard node.kind == .frame else { return false }
                return object(nested, frame: index, into: &out)
            case .objects(let nested):
                guard node.kind == .list else { return false }
                out.append(UInt8(ascii: "["))
                for offset in 0..<Int(node.count) {
                    if offset > 0 { out.append(UInt8(ascii: ",")) }
                    let element = tape.slots[Int(node.first) + offset]
                    switch tape.nodes[Int(element)].kind {
                    case .frame: guard object(nested, frame: element, into: &out) else { return false }
                    case .null: guard object(nested, frame: -1, into: &out) else { return false }
                    default: return false
                    }
                }
                out.append(UInt8(ascii: "]"))
                return true
            default:
                guard let value = JSONTape.value(of: node, in: bytes) else { return false }
                return convert(value, as: property, into: &out)
            }
        }
    }

    /// The general conversion, and the general writer: used for every value the plan does not copy.
    private func convert(_ value: JSONValue, as property: PropertyPlan, into out: inout [UInt8]) -> Bool {
        var failures: [ConversionFailure] = []
        let converted = converter.convert(
            value, to: property.type, dateFormat: property.dateFormats, failures: &failures)
        guard failures.isEmpty else { return false }
        JSONWriter.write(converted, into: &out, omittingNulls: omittingNulls)
        return true
    }

    /// Whether a number is written as the writer writes its Int: a whole number of at most 18
    /// digits (so within Int64), not `-0`.
    private func copiesAsInteger(_ node: JSONTape.Node) -> Bool {
        var position = Int(node.start)
        let end = Int(node.end)
        if bytes[position] == UInt8(ascii: "-") {
            position += 1
            if end - position == 1, bytes[position] == UInt8(ascii: "0") { return false }
        }
        guard end - position <= 18 else { return false }
        while position < end {
            guard bytes[position] &- 48 < 10 else { return false }
            position += 1
        }
        return true
    }

    /// Writes a number as the writer writes the Decimal it converts to, when it is written
    /// without an exponent in at most 18 digits: its digits without the fraction's trailing
    /// zeros, `0` for zero; returns `false`, writing nothing, for any other number.
    private func writesDecimal(_ node: JSONTape.Node, into out: inout [UInt8]) -> Bool {
        let start = Int(node.start)
        let end = Int(node.end)
        var position = start
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let integerStart = position
        while position < end, bytes[position] &- 48 < 10 { position += 1 }
        let integerEnd = position
        var fractionEnd = position
        if position < end {
            guard bytes[position] == UInt8(ascii: ".") else { return false }  // an exponent
            position += 1
            while position < end, bytes[position] &- 48 < 10 { position += 1 }
            guard position == end else { return false }
            fractionEnd = end
            // The fraction without its trailing zeros.
            while fractionEnd > integerEnd + 1, bytes[fractionEnd - 1] == UInt8(ascii: "0") { fractionEnd -= 1 }
        }
        guard end - integerStart <= 19 else { return false }
        let fraction = fractionEnd > integerEnd + 1 ? integerEnd + 1..<fractionEnd : integerEnd..<integerEnd
        let integerIsZero = integerEnd - integerStart == 1 && bytes[integerStart] == UInt8(ascii: "0")
        if integerIsZero, fraction.isEmpty {
            out.append(UInt8(ascii: "0"))
            return true
        }
        if negative { out.append(UInt8(ascii: "-")) }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[integerStart..<integerEnd]))
        if !fraction.isEmpty {
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[fraction]))
        }
        return true
    }

    /// A string as the writer writes it: copied with its quotes when it has no escapes (the
    /// writer escapes only what JSON requires, which such a string cannot hold), else decoded
    /// and written again.
    private func writeString(_ node: JSONTape.Node, into out: inout [UInt8]) {
        let start = Int(node.start) - 1
        let end = Int(node.end) + 1
        guard node.escaped else {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
            return
        }
        guard case .string(let string)? = JSONTape.value(of: node, in: bytes) else { return }
        JSONWriter.writeString(string, into: &out)
    }
}
