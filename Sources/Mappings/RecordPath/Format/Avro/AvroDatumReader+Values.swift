import MappingsJSON

extension AvroDatumReader {
    /// A float or a double as the shortest text that reads back as the same value (a float's
    /// `0.1`, not the double's `0.10000000149011612`), written as a float (`2.0`, not `2`; Swift's
    /// `1e-05` and `1e+20` are JSON too); NaN and the infinities, which JSON cannot write, are
    /// an error.
    func floatingPoint(single: Bool, _ cursor: inout Cursor, _ output: inout [UInt8]) throws(AvroDatumError) {
        let size = single ? 4 : 8
        let raw = try cursor.take(size, single ? "float" : "double")
        let (text, finite) =
            single
            ? Self.text(Float(bitPattern: raw.loadUnaligned(as: UInt32.self).littleEndian))
            : Self.text(Double(bitPattern: raw.loadUnaligned(as: UInt64.self).littleEndian))
        guard finite else {
            throw cursor.failure(
                "the \(single ? "float" : "double") is \(text), which JSON cannot write", at: cursor.position - size)
        }
        output.append(contentsOf: text.utf8)
    }

    private static func text(_ value: some BinaryFloatingPoint & LosslessStringConvertible) -> (String, Bool) {
        ("\(value)", value.isFinite)
    }

    func string(_ cursor: inout Cursor, _ output: inout [UInt8]) throws(AvroDatumError) {
        let start = cursor.position
        let bytes = try cursor.take(try cursor.length("string"), "string")
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw cursor.failure("the string is not UTF-8", at: start)
        }
        JSONWriter.writeString(text, into: &output)
    }

    func symbol(_ name: String, _ symbols: [String], _ cursor: inout Cursor, _ output: inout [UInt8])
        throws(AvroDatumError)
    {
        let start = cursor.position
        let index = try cursor.varint("enum", bits: 32)
        guard index >= 0, index < Int64(symbols.count) else {
            throw cursor.failure("the enum \"\(name)\" has no symbol \(index) (it has \(symbols.count))", at: start)
        }
        JSONWriter.writeString(symbols[Int(index)], into: &output)
    }

    func record(_ fields: [AvroSchema.Field], _ cursor: inout Cursor, _ output: inout [UInt8]) throws(AvroDatumError) {
        output.append(UInt8(ascii: "{"))
        for (number, field) in fields.enumerated() {
            if number > 0 { output.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(field.name, into: &output)
            output.append(UInt8(ascii: ":"))
            cursor.path.append(.key(field.name))
            try value(field.type, &cursor, &output)
            cursor.path.removeLast()
        }
        output.append(UInt8(ascii: "}"))
    }

    /// The count of an array's or a map's next block (0: the end), its byte size skipped; a
    /// count its items could not fit in the bytes left is an error before any item is read.
    func blockCount(_ item: Int, _ what: String, _ cursor: inout Cursor) throws(AvroDatumError) -> Int {
        let start = cursor.position
        var count = try cursor.varint("\(what)'s count")
        if count < 0 {
            guard count != Int64.min else { throw cursor.failure("the \(what)'s count is out of range", at: start) }
            count = -count
            let size = try cursor.varint("\(what)'s block size")
            guard size >= 0, size <= cursor.remaining else {
                throw cursor.failure("the \(what)'s block of \(size) bytes runs past the end of the datum", at: start)
            }
        }
        let least = minimumSizes[item] + (what == "map" ? 1 : 0)
        // Items of no bytes (nulls) are bounded by the JSON they write (at least 4 bytes each).
        let bound = least == 0 ? JSONLines.maximumLine / 4 : cursor.remaining / least
        guard count <= Int64(bound) else {
            throw cursor.failure(
                "the \(what)'s count \(count) is more than its bytes can hold", at: start, truncated: least > 0)
        }
        return Int(count)
    }

    /// An array's items, or a map's entries (a map is an object of its keys in their order).
    func collection(_ item: Int, map: Bool, _ cursor: inout Cursor, _ output: inout [UInt8]) throws(AvroDatumError) {
        output.append(map ? UInt8(ascii: "{") : UInt8(ascii: "["))
        var index = 0
        while case let count = try blockCount(item, map ? "map" : "array", &cursor), count > 0 {
            for _ in 0..<count {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                if map {
                    let start = cursor.position
                    let keyBytes = try cursor.take(try cursor.length("map's key"), "map's key")
                    guard let key = String(validating: keyBytes, as: UTF8.self) else {
                        throw cursor.failure("the map's key is not UTF-8", at: start)
                    }
                    JSONWriter.writeString(key, into: &output)
                    output.append(UInt8(ascii: ":"))
                    cursor.path.append(.key(key))
                } else {
                    cursor.path.append(.index(index))
                }
                try value(item, &cursor, &output)
                cursor.path.removeLast()
                index += 1
            }
        }
        output.append(map ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }
}
