import MappingsJSON

extension AvroSchema {
    /// The schema's Parsing Canonical Form, as the specification defines it: full names, only the
    /// attributes that shape the encoding (no logical types, docs, defaults), each named type
    /// written once and named after that, no spaces.
    package var canonicalForm: String {
        var named: Set<Int> = []
        return canonical(root, &named)
    }

    private func canonical(_ index: Int, _ named: inout Set<Int>) -> String {
        let kind = nodes[index].kind
        switch kind {
        case .null, .boolean, .int, .long, .float, .double, .bytes, .string: return "\"\(typeName(index))\""
        case .array(let items): return "{\"type\":\"array\",\"items\":\(canonical(items, &named))}"
        case .map(let values): return "{\"type\":\"map\",\"values\":\(canonical(values, &named))}"
        case .union(let branches): return "[" + branches.map { canonical($0, &named) }.joined(separator: ",") + "]"
        case .record(let name, let fields):
            guard named.insert(index).inserted else { return quoted(name) }
            let list = fields.map { "{\"name\":\(quoted($0.name)),\"type\":\(canonical($0.type, &named))}" }
            return "{\"name\":\(quoted(name)),\"type\":\"record\",\"fields\":[\(list.joined(separator: ","))]}"
        case .enumeration(let name, let symbols):
            guard named.insert(index).inserted else { return quoted(name) }
            return
                "{\"name\":\(quoted(name)),\"type\":\"enum\",\"symbols\":[\(symbols.map(quoted).joined(separator: ","))]}"
        case .fixed(let name, let size):
            guard named.insert(index).inserted else { return quoted(name) }
            return "{\"name\":\(quoted(name)),\"type\":\"fixed\",\"size\":\(size)}"
        }
    }

    private func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        JSONWriter.writeString(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The schema's CRC-64-AVRO fingerprint (of its canonical form), which a single-object
    /// message carries after `C3 01`, little-endian.
    package var fingerprint: UInt64 {
        var value = Self.emptyFingerprint
        for byte in canonicalForm.utf8 {
            value = (value >> 8) ^ Self.fingerprintTable[Int((value ^ UInt64(byte)) & 0xFF)]
        }
        return value
    }

    /// CRC-64-AVRO's starting value, the specification's.
    private static let emptyFingerprint: UInt64 = 0xC15D_213A_A4D7_A795

    private static let fingerprintTable: [UInt64] = (0..<256).map { byte in
        var value = UInt64(byte)
        for _ in 0..<8 { value = (value >> 1) ^ (emptyFingerprint & (0 &- (value & 1))) }
        return value
    }
}
