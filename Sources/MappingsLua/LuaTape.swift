import Mappings

/// The byte encoding values cross the Lua bridge in, both ways: one tag byte, then the payload
/// (little-endian). The C side decodes it into Lua values under `lua_pcall` and encodes results
/// with raw table access only (see `sandbox.h`).
enum LuaTape {
    /// Encodes a JSON value.
    static func encode(_ value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        write(value, into: &bytes)
        return bytes
    }

    private static func write(_ value: JSONValue, into bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(UInt8(ascii: "n"))
        case .bool(let flag): bytes.append(UInt8(ascii: flag ? "t" : "f"))
        case .integer(let number):
            bytes.append(UInt8(ascii: "i"))
            append(UInt64(bitPattern: number), into: &bytes)
        case .double(let number):
            bytes.append(UInt8(ascii: "d"))
            append(number.bitPattern, into: &bytes)
        case .number(let number) where number.isExactDouble:
            bytes.append(UInt8(ascii: "d"))
            append(number.double.bitPattern, into: &bytes)
        case .number(let number):
            // Beyond what a Lua integer or float holds: the script sees the literal as a string,
            // which Lua's arithmetic still converts (to the nearest float) when asked.
            bytes.append(UInt8(ascii: "s"))
            writeText(number.literal, into: &bytes)
        case .string(let text):
            bytes.append(UInt8(ascii: "s"))
            writeText(text, into: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "a"))
            append(UInt32(elements.count), into: &bytes)
            for element in elements { write(element, into: &bytes) }
        case .object(let object):
            bytes.append(UInt8(ascii: "o"))
            append(UInt32(object.count), into: &bytes)
            for member in object.members {
                writeText(member.key, into: &bytes)
                write(member.value, into: &bytes)
            }
        }
    }

    private static func writeText(_ text: String, into bytes: inout [UInt8]) {
        let utf8 = text.utf8
        append(UInt32(utf8.count), into: &bytes)
        bytes.append(contentsOf: utf8)
    }

    private static func append<T: FixedWidthInteger>(_ number: T, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Why a result tape did not decode into a JSON value.
    struct Failure: Error {
        var message: String
    }

    /// Decodes a result tape. Strings must be valid UTF-8 (Lua strings are bytes).
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> JSONValue {
        var reader = Reader(bytes: bytes)
        let value = try reader.value()
        guard reader.offset == bytes.count else { throw Failure(message: "the result tape has trailing bytes") }
        return value
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func value() throws(Failure) -> JSONValue {
            switch try byte() {
            case UInt8(ascii: "n"): return .null
            case UInt8(ascii: "t"): return .bool(true)
            case UInt8(ascii: "f"): return .bool(false)
            case UInt8(ascii: "i"): return .integer(Int64(bitPattern: try number(UInt64.self)))
            case UInt8(ascii: "d"): return .double(Double(bitPattern: try number(UInt64.self)))
            case UInt8(ascii: "s"): return .string(try text())
            case UInt8(ascii: "a"):
                let count = Int(try number(UInt32.self))
                var elements: [JSONValue] = []
                elements.reserveCapacity(min(count, bytes.count - offset))
                for _ in 0..<count { elements.append(try value()) }
                return .array(elements)
            case UInt8(ascii: "o"):
                let count = Int(try number(UInt32.self))
                var members: [(key: String, value: JSONValue)] = []
                members.reserveCapacity(min(count, bytes.count - offset))
                for _ in 0..<count {
                    let key = try text()
                    members.append((key, try value()))
                }
                return .object(JSONObject(members))
            case let tag: throw Failure(message: "the result tape has an unknown tag \(tag)")
            }
        }

        mutating func byte() throws(Failure) -> UInt8 {
            guard offset < bytes.count else { throw Failure(message: "the result tape ends early") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func number<T: FixedWidthInteger>(_: T.Type) throws(Failure) -> T {
            let size = MemoryLayout<T>.size
            guard bytes.count - offset >= size else { throw Failure(message: "the result tape ends early") }
            var raw: T = 0
            withUnsafeMutableBytes(of: &raw) {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + size]))
            }
            offset += size
            return T(littleEndian: raw)
        }

        mutating func text() throws(Failure) -> String {
            let count = Int(try number(UInt32.self))
            guard bytes.count - offset >= count else { throw Failure(message: "the result tape ends early") }
            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
            offset += count
            guard let text = String(validating: slice, as: UTF8.self) else {
                throw Failure(message: "a string is not valid UTF-8 (Lua strings are bytes; JSON text is UTF-8)")
            }
            return text
        }
    }
}
