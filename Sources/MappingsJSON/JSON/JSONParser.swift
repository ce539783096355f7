/// Reads payload JSON (RFC 8259, strict) into a `JSONValue`.
///
/// This is the one seam every payload goes through. Numbers keep their digits: integers that
/// fit in 64 bits are exact `integer`s, numbers a double holds as written are `double`s, and
/// every other number keeps its literal (`JSONValue.number`). A duplicate key keeps its last value, as most
/// JSON readers do, and the object names it (`JSONObject.duplicateKeys`) so that mapping reports it
/// rather than choose silently. Errors name the 1-based line and column.
package enum JSONParser {
    /// A payload that is not valid JSON.
    package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        package var message: String
        package var line: Int
        package var column: Int

        package var description: String { "\(line):\(column): \(message)" }

        package init(message: String, line: Int, column: Int) {
            self.message = message
            self.line = line
            self.column = column
        }
    }

    /// How deeply a payload may nest.
    package static let maximumDepth = 512

    package static func parse(_ text: String) throws(Failure) -> JSONValue {
        try parse(Array(text.utf8))
    }

    package static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        try parse(bytes, demand: .everything)
    }

    /// The first byte of the JSON text (`[` for an array, `{` for an object), after a
    /// byte-order mark and whitespace; `nil` for empty text.
    package static func firstByte(of bytes: [UInt8]) -> UInt8? {
        return bytes[JSONEscape.textStart(of: bytes)...].first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) })
    }

    /// Parses the whole payload but builds only what `demand` asks for; the rest is checked.
    package static func parse(_ bytes: [UInt8], demand: JSONDemand) throws(Failure) -> JSONValue {
        let result: Result<JSONValue, Failure> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(Failure) in try parse(buffer, demand: demand) }
        }
        return try result.get()
    }

    /// `parse(_:demand:)` over bytes in place (a record inside a larger buffer).
    package static func parse(_ buffer: UnsafeBufferPointer<UInt8>, demand: JSONDemand) throws(Failure) -> JSONValue {
        var reader = Reader(bytes: buffer)
        reader.index = JSONEscape.textStart(of: buffer)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0, demand: demand)
        reader.skipWhitespace()
        guard reader.index == buffer.count else { throw reader.failure("unexpected text after the JSON value") }
        return value
    }

    /// The reading state, shared with the record tape (`JSONTape`), which scans with the same checks.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        @inline(__always)
        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int, demand: JSONDemand) throws(Failure) -> JSONValue {
            guard index < bytes.count else { throw failure("unexpected end of input: a value was expected") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1, demand: demand)
            case UInt8(ascii: "["): return try array(depth: depth + 1, demand: demand)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw failure("unexpected character \(shown(bytes[index])): a value was expected")
            }
        }

        /// Checks a value without building it.
        mutating func skipValue(depth: Int) throws(Failure) {
            guard index < bytes.count else { throw failure("unexpected end of input: a value was expected") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                try members(depth: depth + 1) { reader, _ throws(Failure) in try reader.skipValue(depth: depth + 1) }
            case UInt8(ascii: "["):
                try elements(depth: depth + 1) { reader throws(Failure) in try reader.skipValue(depth: depth + 1) }
            case UInt8(ascii: "\""): _ = try scanString()
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): try skipLiteral()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
            default: throw failure("unexpected character \(shown(bytes[index])): a value was expected")
            }
        }

        /// Reads the members of the object at `index` (its `{`): the one loop over members of
        /// every reader of objects (the parser building values or skipping them, the record
        /// tape). It checks the brackets, the keys and the separators, and hands each key, scanned
        /// and checked, to `member`, with the reader at the member's value, which `member` reads.
        @inline(__always)
        mutating func members(depth: Int, _ member: (inout Reader, ScannedString) throws(Failure) -> Void)
            throws(Failure)
        {
            guard depth <= JSONParser.maximumDepth else {
                throw failure("nesting deeper than \(JSONParser.maximumDepth) levels")
            }
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw failure(
                        index < bytes.count ? "expected a key in double quotes" : "unexpected end of input in an object"
                    )
                }
                let key = try scanString()
                try colon()
                try member(&self, key)
                skipWhitespace()
                guard index < bytes.count else { throw failure("unexpected end of input in an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    continue
                }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return
                }
                throw failure("expected ',' or '}' in an object")
            }
        }

        /// Reads the elements of the array at `index` (its `[`), each with `element`: the one
        /// loop over elements, as `members` is over members.
        @inline(__always)
        mutating func elements(depth: Int, _ element: (inout Reader) throws(Failure) -> Void) throws(Failure) {
            guard depth <= JSONParser.maximumDepth else {
                throw failure("nesting deeper than \(JSONParser.maximumDepth) levels")
            }
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                try element(&self)
                skipWhitespace()
                guard index < bytes.count else { throw failure("unexpected end of input in an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    continue
                }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return
                }
                throw failure("expected ',' or ']' in an array")
            }
        }

        @inline(__always)
        mutating func colon() throws(Failure) {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected ':' after a key")
            }
            index += 1
            skipWhitespace()
        }

        mutating func object(depth: Int, demand: JSONDemand) throws(Failure) -> JSONValue {
            var members: [(key: String, value: JSONValue)] = []
            // Where each key is, once an object is too large for a linear search of its keys.
            var positions: [CodePointKey: Int]?
            // With a demand that keeps only its own keys: where each wanted key is among
            // `members` (-1 until seen), so that a repeated key is found without comparing
            // strings; and which wanted key to try first (payloads repeat one key order).
            var wantedPositions: [Int] = []
            var nextWanted = 0
            var duplicates: [String] = []
            try self.members(depth: depth) { reader, scanned throws(Failure) in
                let key: String
                let itemDemand: JSONDemand
                switch demand {
                case .everything:
                    key = try reader.text(of: scanned)
                    itemDemand = .everything
                case .members(let wanted, let keepsOtherKeys):
                    guard let found = reader.match(scanned, in: wanted, from: nextWanted) else {
                        let other = keepsOtherKeys ? try reader.text(of: scanned) : nil
                        try reader.skipValue(depth: depth)
                        if let other {
                            if Self.position(of: other, in: members, index: &positions) == nil {
                                positions?[CodePointKey(text: other)] = members.count
                                members.append((other, .null))
                            } else {
                                Self.noteDuplicate(other, in: &duplicates)
                            }
                        }
                        return
                    }
                    nextWanted = found + 1
                    if !keepsOtherKeys {
                        let item = try reader.value(depth: depth, demand: wanted[found].demand)
                        if wantedPositions.isEmpty { wantedPositions = Array(repeating: -1, count: wanted.count) }
                        if wantedPositions[found] >= 0 {
                            members[wantedPositions[found]].value = item
                            Self.noteDuplicate(wanted[found].key, in: &duplicates)
                        } else {
                            wantedPositions[found] = members.count
                            members.append((wanted[found].key, item))
                        }
                        return
                    }
                    key = wanted[found].key
                    itemDemand = wanted[found].demand
                }
                let item = try reader.value(depth: depth, demand: itemDemand)
                if let existing = Self.position(of: key, in: members, index: &positions) {
                    members[existing].value = item
                    Self.noteDuplicate(key, in: &duplicates)
                } else {
                    positions?[CodePointKey(text: key)] = members.count
                    members.append((key, item))
                }
            }
            return .object(JSONObject(uniqueMembers: members, duplicateKeys: duplicates))
        }

        /// Adds a repeated key to an object's `duplicateKeys`, once however often it repeats.
        static func noteDuplicate(_ key: String, in duplicates: inout [String]) {
            if !duplicates.contains(where: { $0.hasSameCodePoints(as: key) }) { duplicates.append(key) }
        }

        /// The position of `key` among `members`: a linear search while they are few, then an index.
        static func position(
            of key: String, in members: [(key: String, value: JSONValue)], index: inout [CodePointKey: Int]?
        ) -> Int? {
            if let index { return index[CodePointKey(text: key)] }
            if members.count < 16 {
                for position in members.indices where members[position].key.hasSameCodePoints(as: key) {
                    return position
                }
                return nil
            }
            var built: [CodePointKey: Int] = [:]
            for (position, member) in members.enumerated() { built[CodePointKey(text: member.key)] = position }
            index = built
            return built[CodePointKey(text: key)]
        }

        /// The text of a string just scanned.
        func text(of scanned: ScannedString) throws(Failure) -> String {
            var copy = self
            copy.index = scanned.start - 1
            return try copy.string()
        }

        /// Where the wanted member whose key is the string just scanned is in `wanted`, if it
        /// is there; the member at `hint` is tried first.
        func match(_ scanned: ScannedString, in wanted: [JSONDemand.Member], from hint: Int) -> Int? {
            if scanned.hasEscapes {
                var copy = self
                copy.index = scanned.start - 1
                guard let text = try? copy.string() else { return nil }
                return wanted.firstIndex(where: { $0.key.hasSameCodePoints(as: text) })
            }
            if hint < wanted.count, holds(scanned, wanted[hint].bytes) { return hint }
            for position in wanted.indices where position != hint && holds(scanned, wanted[position].bytes) {
                return position
            }
            return nil
        }

        /// Whether the string just scanned (without escapes) is `key`'s bytes.
        @inline(__always)
        func holds(_ scanned: ScannedString, _ key: [UInt8]) -> Bool {
            let count = scanned.end - scanned.start
            guard key.count == count else { return false }
            return key.withUnsafeBytes { key in
                Self.sameBytes(key.baseAddress, UnsafeRawPointer(bytes.baseAddress! + scanned.start), count: count)
            }
        }

        /// Whether `count` bytes at `mine` and `theirs` are the same: the one key matcher of the
        /// parser and the record tape. Eight bytes at a time; the last eight (or four) overlap
        /// what came before.
        @inline(__always)
        static func sameBytes(_ mine: UnsafeRawPointer?, _ theirs: UnsafeRawPointer, count: Int) -> Bool {
            guard count > 0, let mine else { return count == 0 }
            if count >= 8 {
                var offset = 0
                while offset + 8 < count {
                    guard
                        mine.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                            == theirs.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    else { return false }
                    offset += 8
                }
                return mine.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == theirs.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            }
            if count >= 4 {
                return mine.loadUnaligned(as: UInt32.self) == theirs.loadUnaligned(as: UInt32.self)
                    && mine.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                        == theirs.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            }
            for offset in 0..<count
            where mine.load(fromByteOffset: offset, as: UInt8.self)
                != theirs.load(fromByteOffset: offset, as: UInt8.self)
            {
                return false
            }
            return true
        }

        mutating func array(depth: Int, demand: JSONDemand) throws(Failure) -> JSONValue {
            var elements: [JSONValue] = []
            try self.elements(depth: depth) { reader throws(Failure) in
                elements.append(try reader.value(depth: depth, demand: demand))
            }
            return .array(elements)
        }

        /// Where a string's content is (between its quotes) and whether it has escapes.
        struct ScannedString {
            var start: Int
            var end: Int
            var hasEscapes: Bool
        }

        /// Checks the string at `index` (control characters, escapes, UTF-8) and moves past it.
        mutating func scanString() throws(Failure) -> ScannedString {
            index += 1
            let start = index
            var hasEscapes = false
            var ascii = true
            while true {
                // Sixteen bytes at a time (one vector compare) while none is a quote, a backslash,
                // a control character or non-ASCII; then eight at a time, and straight to the
                // first that is.
                let quotes = SIMD16<UInt8>(repeating: UInt8(ascii: "\""))
                let backslashes = SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
                let spaces = SIMD16<UInt8>(repeating: 0x20)
                let nonASCII = SIMD16<UInt8>(repeating: 0x80)
                while index + 16 <= bytes.count {
                    let vector = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: SIMD16<UInt8>.self)
                    let special =
                        (vector .== quotes) .| (vector .== backslashes) .| (vector .< spaces) .| (vector .>= nonASCII)
                    // The mask as two words (testing them is cheaper than `any`'s reduction).
                    let words = unsafeBitCast(
                        SIMD16<UInt8>(repeating: 0).replacing(with: 0xFF, where: special), to: SIMD2<UInt64>.self)
                    if words[0] | words[1] != 0 { break }
                    index += 16
                }
                while index + 8 <= bytes.count {
                    let word = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
                    let attention = Self.attention(word)
                    guard attention == 0 else {
                        index += attention.trailingZeroBitCount >> 3
                        break
                    }
                    index += 8
                }
                guard index < bytes.count else { throw failure("unexpected end of input in a string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") { break }
                if byte < 0x20 { throw failure("a control character must be escaped in a string") }
                if byte >= 0x80 { ascii = false }
                if byte == UInt8(ascii: "\\") {
                    hasEscapes = true
                    index += 1
                    guard index < bytes.count else { throw failure("unexpected end of input in an escape") }
                    let escape = bytes[index]
                    index += 1
                    if JSONEscape.character(after: escape) != nil { continue }
                    guard escape == UInt8(ascii: "u") else {
                        index -= 2
                        throw failure("invalid escape sequence")
                    }
                    _ = try unicodeEscape()
                    continue
                }
                index += 1
            }
            if !ascii, UTF8Check.firstInvalid(bytes, from: start, to: index) != nil {
                throw failure("a string is not valid UTF-8", at: start)
            }
            index += 1
            return ScannedString(start: start, end: index - 1, hasEscapes: hasEscapes)
        }

        /// The high bit of each of the eight bytes of `word` (little-endian) that is `"`, `\\`,
        /// below 0x20 or above 0x7F, zero when none is; the lowest bit set is exact, so its
        /// position is the first such byte (the usual bit tricks: a byte is zero after XOR
        /// with the one sought, or is small; a borrow only ever marks bytes above a marked one).
        @inline(__always)
        static func attention(_ word: UInt64) -> UInt64 {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
            let quote = zeroBytes(word ^ (ones &* 0x22))
            let backslash = zeroBytes(word ^ (ones &* 0x5C))
            let control = (word &- ones &* 0x20) & ~word & highs
            return quote | backslash | control | (word & highs)
        }

        mutating func string() throws(Failure) -> String {
            let scanned = try scanString()
            guard scanned.hasEscapes else {
                return String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[scanned.start..<scanned.end]), as: UTF8.self)
            }
            // Escapes: decode again, now that the text is known to be valid UTF-8, into its bytes
            // (runs copied as they are, each escape as the UTF-8 of its character).
            var text: [UInt8] = []
            text.reserveCapacity(scanned.end - scanned.start)
            var position = scanned.start
            var runStart = position
            let resume = index
            while position < scanned.end {
                guard bytes[position] == UInt8(ascii: "\\") else {
                    position += 1
                    continue
                }
                text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                let escape = bytes[position + 1]
                let character: Unicode.Scalar
                if let escaped = JSONEscape.character(after: escape) {
                    character = escaped
                    position += 2
                } else {
                    index = position + 2
                    character = try unicodeEscape()
                    position = index
                }
                UTF8.encode(character) { text.append($0) }
                runStart = position
            }
            text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<scanned.end]))
            index = resume
            return String(decoding: text, as: UTF8.self)
        }

        mutating func unicodeEscape() throws(Failure) -> Unicode.Scalar {
            let high = try hex4()
            if JSONEscape.isHighSurrogate(high) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw failure("a high surrogate must be followed by a low surrogate")
                }
                index += 2
                let low = try hex4()
                guard let scalar = JSONEscape.scalar(high: high, low: low) else {
                    throw failure("a high surrogate must be followed by a low surrogate")
                }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else { throw failure("a lone low surrogate is not a character") }
            return scalar
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard index < bytes.count else { throw failure("\\u needs four hexadecimal digits") }
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte) - 48
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte) - 87
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte) - 55
                default: throw failure("\\u needs four hexadecimal digits")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        /// Checks the number at `index` and moves past it, as `scanNumber` does, without
        /// working out its value: what a scan that keeps numbers as bytes needs.
        mutating func skipNumber() throws(Failure) {
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, isDigit(bytes[index]) {
                    throw failure("numbers do not start with a leading zero")
                }
            } else {
                skipDigits()
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else {
                    throw failure("a number needs digits after '.'")
                }
                skipDigits()
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard index < bytes.count, isDigit(bytes[index]) else {
                    throw failure("a number needs digits in its exponent")
                }
                skipDigits()
            }
        }

        /// Moves past a run of digits, eight at a time while there are eight.
        @inline(__always)
        mutating func skipDigits() {
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
                // Each byte is 0x30...0x39: its high nibble is 3, and adding 6 keeps it 3.
                let high: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
                let threes: UInt64 = 0x3030_3030_3030_3030
                let notDigits = ((word & high) ^ threes) | (((word &+ 0x0606_0606_0606_0606) & high) ^ threes)
                guard notDigits == 0 else {
                    index += notDigits.trailingZeroBitCount >> 3
                    return
                }
                index += 8
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }

        mutating func number() throws(Failure) -> JSONValue {
            let start = index
            if let integer = try scanNumber() { return .integer(integer) }
            return .number(literal: utf8(start, index))
        }

        /// Checks the number at `index` and moves past it: its value when it is written as a
        /// whole number that fits in 64 bits, else `nil` (`number()` then keeps its literal).
        mutating func scanNumber() throws(Failure) -> Int64? {
            var negative = false
            if bytes[index] == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits") }
            var magnitude: UInt64 = 0
            var overflow = false
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, isDigit(bytes[index]) {
                    throw failure("numbers do not start with a leading zero")
                }
            } else {
                // Up to 19 digits cannot overflow 64 unsigned bits; only a longer run is checked.
                let digitsStart = index
                while index < bytes.count, isDigit(bytes[index]) {
                    magnitude = magnitude &* 10 &+ UInt64(bytes[index] &- 48)
                    index += 1
                }
                if index - digitsStart > 19 {
                    magnitude = 0
                    for position in digitsStart..<index {
                        let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
                        let (plus, o2) = times.addingReportingOverflow(UInt64(bytes[position] &- 48))
                        overflow = overflow || o1 || o2
                        magnitude = plus
                    }
                }
            }
            var integral = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                integral = false
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else {
                    throw failure("a number needs digits after '.'")
                }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                integral = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard index < bytes.count, isDigit(bytes[index]) else {
                    throw failure("a number needs digits in its exponent")
                }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            // `-0` is no integer: an Int64 would drop its sign (`number()` keeps the literal).
            if integral, !overflow, !(negative && magnitude == 0) {
                if negative, magnitude <= UInt64(Int64.max) + 1 {
                    return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
                }
                if !negative, magnitude <= UInt64(Int64.max) { return Int64(magnitude) }
            }
            return nil
        }

        /// Moves past the `true`, `false` or `null` at `index` (its first letter is one of
        /// theirs), four bytes compared at once; `literal` says what is wrong when it is none.
        @inline(__always)
        mutating func skipLiteral() throws(Failure) {
            if index + 4 <= bytes.count {
                let word = UInt32(
                    littleEndian: UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt32.self))
                // "true", "null" and "fals" as little-endian words.
                if word == 0x6575_7274 || word == 0x6C6C_756E {
                    index += 4
                    return
                }
                if word == 0x736C_6166, index + 5 <= bytes.count, bytes[index + 4] == UInt8(ascii: "e") {
                    index += 5
                    return
                }
            }
            switch bytes[index] {
            case UInt8(ascii: "t"): _ = try literal("true", .null)
            case UInt8(ascii: "f"): _ = try literal("false", .null)
            default: _ = try literal("null", .null)
            }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw failure("unexpected end of input: a value was expected") }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
                throw failure("unexpected character \(shown(bytes[index])): a value was expected")
            }
            index += count
            return value
        }

        /// Text already checked to be valid UTF-8.
        func utf8(_ start: Int, _ end: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }

        @inline(__always)
        func isDigit(_ byte: UInt8) -> Bool { byte &- 48 < 10 }

        func shown(_ byte: UInt8) -> String {
            byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16)
        }

        func failure(_ message: String, at offset: Int? = nil) -> Failure {
            let position = min(offset ?? index, bytes.count)
            var line = 1
            var lineStart = 0
            for i in 0..<position where bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            let column = bytes[lineStart..<position].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
            return Failure(message: message, line: line, column: column)
        }
    }
}
