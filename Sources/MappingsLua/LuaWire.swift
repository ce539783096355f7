import Mappings

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// The byte encoding values cross the Lua bridge in, both ways: one tag byte, then the payload
/// (little-endian). The C side decodes it into Lua values under `lua_pcall` and encodes results
/// with raw table access only (see `sandbox.h`).
///
/// A call's input object or array crosses as its JSON text (tag `j`), which the script reads
/// through a view (view.c): a member is converted when it is read. A result may hold such text
/// (a view returned unchanged) or `I` (the input itself, unchanged).
/// What a call is given: a value, or the JSON text of one (a fast plan's span of the record,
/// which the script reads through a view without the value ever being built).
enum LuaInput {
    case value(JSONValue)
    /// Valid JSON text, for the length of the call.
    case text(UnsafeBufferPointer<UInt8>)

    /// Appends the input's wire to `out`.
    func append(to out: inout [UInt8]) {
        switch self {
        case .value(let value): LuaWire.appendInput(value, to: &out)
        case .text(let text): LuaWire.appendText(UnsafeRawBufferPointer(text), to: &out)
        }
    }

    /// The input as a value: for the result's references to it (`I`, the spelling of its floats).
    var parsed: JSONValue? {
        switch self {
        case .value(let value): value
        case .text(let text): try? JSONParser.parse(text, demand: .everything)
        }
    }
}

enum LuaWire {
    /// Appends JSON text to `out` as an input wire of tag `j`.
    static func appendText(_ text: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "j"))
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: text.count).littleEndian) { out += $0 }
        out += text
    }

    /// Appends the wire of a call's input to `out`: an object or array as its JSON text, read
    /// lazily by the script (which refuses what it reads past `CLUA_MAX_DEPTH` levels, or of an
    /// object that repeats a key); anything else as `write` writes it.
    static func appendInput(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .array, .object:
            let start = out.count
            out.append(UInt8(ascii: "j"))
            out.append(contentsOf: [0, 0, 0, 0])
            writeText(value, into: &out)
            let length = UInt32(truncatingIfNeeded: out.count - start - 5).littleEndian
            withUnsafeBytes(of: length) { bytes in
                for offset in 0..<4 { out[start + 1 + offset] = bytes[offset] }
            }
        default:
            // A short one written on the stack and copied in; a longer one in place: a scalar call
            // allocates nothing once `out` has grown.
            let size = size(of: value)
            if size <= 64 {
                withUnsafeTemporaryAllocation(byteCount: size, alignment: 1) { block in
                    let base = block.baseAddress!
                    _ = write(value, to: base, end: base + size)
                    out.append(contentsOf: UnsafeRawBufferPointer(block))
                }
                return
            }
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: size))
            out.withUnsafeMutableBytes { bytes in
                let base = bytes.baseAddress! + start
                _ = write(value, to: base, end: base + size)
            }
        }
    }

    /// Writes `value` as JSON text as a script should read it: as `JSONWriter` does, but a
    /// float keeps its kind (`1.0`, never `1`, which reads as an integer).
    static func writeText(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .double(let double):
            if case .number(let number) = JSONValue.float(double) {
                out += number.literal.utf8
            } else {
                out += JSONWriter.number(double).utf8
            }
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                writeText(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                writeText(member.value, into: &out)
            }
            // A key the payload wrote twice is written twice: the script's view refuses the
            // object when it reads it, as it does a span of the record (the value kept one).
            for key in object.duplicateKeys {
                if !object.members.isEmpty { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(key, into: &out)
                JSONWriter.append(":null", to: &out)
            }
            out.append(UInt8(ascii: "}"))
        default:
            JSONWriter.write(value, into: &out)
        }
    }

    /// Encodes a JSON value.
    static func encode(_ value: JSONValue) -> [UInt8] {
        let count = size(of: value)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let start = UnsafeMutableRawPointer(buffer.baseAddress!)
            guard let end = write(value, to: start, end: start + count) else {
                preconditionFailure("a value's wire is larger than the size measured for it")
            }
            initialized = end - start
        }
    }

    /// The bytes `value`'s wire takes: what `write` writes.
    static func size(of value: JSONValue) -> Int {
        switch value {
        case .null, .bool: 1
        case .integer, .double: 9
        case .number(let number) where number.isExactDouble: 9
        case .number(let number): 5 + number.literal.utf8.count
        case .string(let text): 5 + text.utf8.count
        case .array(let elements):
            elements.withUnsafeBufferPointer { elements in
                var size = 5
                for index in elements.indices { size += Self.size(of: elements[index]) }
                return size
            }
        case .object(let object):
            object.members.withUnsafeBufferPointer { members in
                var size = 5 + 4 * members.count
                for index in members.indices {
                    size += members[index].key.utf8.count + Self.size(of: members[index].value)
                }
                return size
            }
        }
    }

    /// Writes `value`'s wire from `start` up to at most `end`, and returns where it ended, or
    /// nil when it needs more room (`size(of: value)` bytes are always enough).
    static func write(_ value: JSONValue, to start: UnsafeMutableRawPointer, end: UnsafeMutableRawPointer)
        -> UnsafeMutableRawPointer?
    {
        var writer = Writer(at: start, end: end)
        writer.write(value)
        return writer.overflowed ? nil : writer.at
    }

    /// Writes wire encodings into a block of memory; once the block is full it writes nothing more.
    private struct Writer {
        var at: UnsafeMutableRawPointer
        let end: UnsafeMutableRawPointer
        var overflowed = false

        mutating func write(_ value: JSONValue) {
            switch value {
            case .null: tag("n")
            case .bool(let flag): tag(flag ? "t" : "f")
            case .integer(let number):
                tag("i")
                store(UInt64(bitPattern: number))
            case .double(let number):
                tag("d")
                store(number.bitPattern)
            case .number(let number) where number.isExactDouble:
                tag("d")
                store(number.double.bitPattern)
            case .number(let number):
                // Beyond what a Lua integer or float holds: the script sees the literal as a
                // string, which Lua's arithmetic still converts (to the nearest float) when asked.
                tag("s")
                text(number.literal)
            case .string(let string):
                tag("s")
                text(string)
            case .array(let elements):
                tag("a")
                store(UInt32(elements.count))
                elements.withUnsafeBufferPointer { elements in
                    for index in elements.indices where !overflowed { write(elements[index]) }
                }
            case .object(let object):
                tag("o")
                store(UInt32(object.count))
                object.members.withUnsafeBufferPointer { members in
                    for index in members.indices where !overflowed {
                        text(members[index].key)
                        write(members[index].value)
                    }
                }
            }
        }

        private mutating func room(_ count: Int) -> Bool {
            if end - at >= count { return true }
            overflowed = true
            return false
        }

        private mutating func tag(_ tag: Unicode.Scalar) {
            guard room(1) else { return }
            at.storeBytes(of: UInt8(ascii: tag), as: UInt8.self)
            at += 1
        }

        private mutating func store<T: FixedWidthInteger>(_ number: T) {
            guard room(MemoryLayout<T>.size) else { return }
            at.storeBytes(of: number.littleEndian, as: T.self)
            at += MemoryLayout<T>.size
        }

        private mutating func text(_ text: String) {
            let utf8 = text.utf8
            let count = utf8.count
            store(UInt32(count))
            guard room(count) else { return }
            let start = at
            let copied = utf8.withContiguousStorageIfAvailable { bytes in
                if let base = bytes.baseAddress { start.copyMemory(from: base, byteCount: bytes.count) }
                return bytes.count
            }
            if copied == nil {
                for (offset, byte) in utf8.enumerated() {
                    start.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
                }
            }
            at += count
        }
    }

    /// Why a result wire did not decode into a JSON value.
    struct Failure: Error {
        var message: String
    }

    /// Decodes a result wire, taking object keys seen before from `keys`. Strings must be valid
    /// UTF-8 (Lua strings are bytes).
    ///
    /// A float keeps its kind (`1.0` stays `1.0`, `-0.0` its sign); one equal to a number of
    /// `input` written in another spelling than the double's shortest (`2.50`) comes back in
    /// that spelling, so that a value a script passes on is the value it was given.
    static func decode(_ bytes: UnsafeRawBufferPointer, keys: KeyCache, input: LuaInput? = nil) throws(Failure)
        -> JSONValue
    {
        var reader = Reader(bytes: bytes, input: input)
        let value = try reader.value(keys: keys)
        guard reader.offset == bytes.count else { throw Failure(message: "the result wire has trailing bytes") }
        return value
    }

    /// The object keys decoded last, by a hash of their bytes; why: a transformer returns the
    /// same few keys call after call, and a key found here is not validated and built again.
    /// Used by one thread at a time, as its interpreter is.
    final class KeyCache {
        private static let slots = 64
        /// The longest key kept.
        private static let longest = 32
        private var strings: [String] = Array(repeating: "", count: slots)
        /// Each slot's key bytes (`longest` bytes a slot) and length (0: empty).
        private let bytes = UnsafeMutableRawPointer.allocate(byteCount: slots * longest, alignment: 8)
        private var lengths = [Int](repeating: 0, count: slots)

        init() {}

        deinit { bytes.deallocate() }

        /// The key with these bytes, from the cache or made by `make` (and kept).
        func key(_ key: UnsafeRawBufferPointer, make: (UnsafeRawBufferPointer) throws(Failure) -> String)
            throws(Failure) -> String
        {
            let count = key.count
            guard count <= Self.longest, count > 0, let base = key.baseAddress else { return try make(key) }
            var hash = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
            for index in 0..<count {
                hash = (hash ^ UInt64(base.load(fromByteOffset: index, as: UInt8.self))) &* 0x100_0000_01B3
            }
            let slot = Int(truncatingIfNeeded: hash >> 58) & (Self.slots - 1)
            let kept = bytes + slot * Self.longest
            if lengths[slot] == count, memcmp(kept, base, count) == 0 { return strings[slot] }
            let made = try make(key)
            kept.copyMemory(from: base, byteCount: count)
            lengths[slot] = count
            strings[slot] = made
            return made
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0
        /// The call's input, whose number spellings floats come back in.
        let given: LuaInput?
        /// The input as a value, made when first needed.
        var inputValue: JSONValue??
        /// The spellings of the input's numbers by their double's bits, made at the first float.
        var spellings: [UInt64: JSONNumber]?

        init(bytes: UnsafeRawBufferPointer, input: LuaInput?) {
            self.bytes = bytes
            self.given = input
        }

        /// The call's input as a value (`nil` without one).
        mutating func input() -> JSONValue? {
            if let inputValue { return inputValue }
            let value = given?.parsed
            inputValue = .some(value)
            return value
        }

        /// A float of the result, as a JSON number of the float kind.
        mutating func float(_ double: Double) -> JSONValue {
            if spellings == nil {
                var found: [UInt64: JSONNumber] = [:]
                if let input = input() { Self.collectSpellings(of: input, into: &found) }
                spellings = found
            }
            if let literal = spellings?[double.bitPattern] { return .number(literal) }
            return .float(double)
        }

        private static func collectSpellings(of value: JSONValue, into found: inout [UInt64: JSONNumber]) {
            switch value {
            case .number(let number) where number.isExactDouble:
                let bits = number.double.bitPattern
                if found[bits] == nil { found[bits] = number }
            case .array(let elements):
                for element in elements { collectSpellings(of: element, into: &found) }
            case .object(let object):
                for member in object.members { collectSpellings(of: member.value, into: &found) }
            default:
                break
            }
        }

        mutating func value(keys: KeyCache) throws(Failure) -> JSONValue {
            switch try byte() {
            case UInt8(ascii: "n"): return .null
            case UInt8(ascii: "t"): return .bool(true)
            case UInt8(ascii: "f"): return .bool(false)
            case UInt8(ascii: "i"): return .integer(Int64(bitPattern: try number(UInt64.self)))
            case UInt8(ascii: "d"): return float(Double(bitPattern: try number(UInt64.self)))
            case UInt8(ascii: "s"): return .string(try Self.text(try slice()))
            case UInt8(ascii: "a"):
                let count = Int(try number(UInt32.self))
                var elements: [JSONValue] = []
                elements.reserveCapacity(min(count, bytes.count - offset))
                for _ in 0..<count { elements.append(try value(keys: keys)) }
                return .array(elements)
            case UInt8(ascii: "o"):
                let count = Int(try number(UInt32.self))
                var members: [(key: String, value: JSONValue)] = []
                members.reserveCapacity(min(count, bytes.count - offset))
                for _ in 0..<count {
                    let key = try keys.key(try slice(), make: Self.text)
                    members.append((key, try value(keys: keys)))
                }
                return .object(JSONObject(members))
            case UInt8(ascii: "e"): return .object(.kindlessEmpty)
            case UInt8(ascii: "j"):
                let text = try slice()
                do {
                    return try JSONParser.parse(text.assumingMemoryBound(to: UInt8.self), demand: .everything)
                } catch {
                    throw Failure(message: "the result wire holds text that is not JSON: \(error)")
                }
            case UInt8(ascii: "I"):
                guard let input = input() else {
                    throw Failure(message: "the result wire names an input it was not given")
                }
                return input
            case let tag: throw Failure(message: "the result wire has an unknown tag \(tag)")
            }
        }

        mutating func byte() throws(Failure) -> UInt8 {
            guard offset < bytes.count else { throw Failure(message: "the result wire ends early") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func number<T: FixedWidthInteger>(_: T.Type) throws(Failure) -> T {
            let size = MemoryLayout<T>.size
            guard bytes.count - offset >= size else { throw Failure(message: "the result wire ends early") }
            let raw = bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
            offset += size
            return T(littleEndian: raw)
        }

        /// The bytes of a string: its length, then as many bytes.
        mutating func slice() throws(Failure) -> UnsafeRawBufferPointer {
            let count = Int(try number(UInt32.self))
            guard bytes.count - offset >= count else { throw Failure(message: "the result wire ends early") }
            let slice = UnsafeRawBufferPointer(start: bytes.baseAddress! + offset, count: count)
            offset += count
            return slice
        }

        static func text(_ slice: UnsafeRawBufferPointer) throws(Failure) -> String {
            // ASCII needs no validating; other text is validated as it is made (the standard
            // library's validation, not a comparison of the repaired text byte by byte).
            if isASCII(slice) { return String(decoding: slice, as: UTF8.self) }
            guard let text = String(validating: slice, as: UTF8.self) else {
                throw Failure(message: "a string is not valid UTF-8 (Lua strings are bytes; JSON text is UTF-8)")
            }
            return text
        }

        private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
            var index = 0
            var high: UInt64 = 0
            while index + 8 <= bytes.count {
                high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < bytes.count {
                high |= UInt64(bytes[index])
                index += 1
            }
            return high & 0x8080_8080_8080_8080 == 0
        }
    }
}
