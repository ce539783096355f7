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
            case .int
            where (node.kind == .number || (node.kind == .string && !node.escaped)) && writesInteger(node, into: &out):
                return true
            case .date where node.kind == .string && !node.escaped && copiesDate(node):
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(node.start) - 1..<Int(node.end) + 1]))
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

    /// Writes a whole number of at most 18 digits (a number, or a string holding only its
    /// digits and maybe a `-`) as the writer writes the Int it converts to; returns `false`,
    /// writing nothing, for anything else.
    private func writesInteger(_ node: JSONTape.Node, into out: inout [UInt8]) -> Bool {
        var position = Int(node.start)
        let end = Int(node.end)
        guard position < end else { return false }
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < end, end - position <= 18 else { return false }
        var magnitude: Int64 = 0
        while position < end {
            let digit = bytes[position] &- 48
            guard digit < 10 else { return false }
            magnitude = magnitude &* 10 &+ Int64(digit)
            position += 1
        }
        JSONWriter.writeInteger(negative ? -magnitude : magnitude, into: &out)
        return true
    }

    /// Whether a string is a date the general conversion reads and writes back unchanged:
    /// `YYYY-MM-DDTHH:MM:SSZ`, a real day of a year from 1 to 9999, a time within the day.
    private func copiesDate(_ node: JSONTape.Node) -> Bool {
        let start = Int(node.start)
        guard Int(node.end) - start == 20 else { return false }
        func number(_ offset: Int, _ count: Int) -> Int? {
            var value = 0
            for position in start + offset..<start + offset + count {
                let digit = bytes[position] &- 48
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        func separator(_ offset: Int, _ character: Character) -> Bool {
            bytes[start + offset] == character.asciiValue!
        }
        guard separator(4, "-"), separator(7, "-"), separator(10, "T"), separator(13, ":"), separator(16, ":"),
            separator(19, "Z"), let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2)
        else { return false }
        return (1...9999).contains(year) && (1...12).contains(month) && day >= 1
            && day <= DateParser.daysIn(month: month, year: year) && hour <= 23 && minute <= 59 && second <= 59
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
