import CJSONIndex
import Foundation
import MappingsTestSupport
import Testing

@testable import MappingsJSON

/// The structural index (CJSONIndex) and the tape read from it: every kernel gives the entries
/// of the index's definition (checked by a byte-at-a-time reference written here) on texts that
/// put each kind of byte at every offset of a 64-byte block and across its edges, and the tape
/// read from the index accepts exactly the texts the byte-by-byte reader accepts, with the same
/// nodes.
@Suite("the structural index and the tape read from it")
struct StructuralIndexTests {
    /// The kernels this machine runs.
    static var kernels: [Int32] {
        [CJSON_KERNEL_PORTABLE, CJSON_KERNEL_SSE42, CJSON_KERNEL_AVX2, CJSON_KERNEL_NEON, CJSON_KERNEL_AVX512].map(
            Int32.init
        ).filter {
            var index = cjson_index(positions: nil, count: 0, capacity: 0)
            defer { cjson_index_free(&index) }
            return cjson_index_build_with($0, [UInt8(ascii: "1")], 0, 1, &index) != -1
        }
    }

    /// The index by its definition, a byte at a time: the entries, and whether the text can be JSON.
    static func reference(_ bytes: [UInt8], start: Int) -> (entries: [Int], valid: Bool) {
        var entries: [Int] = []
        var valid = true
        var inString = false
        var run = 0  // backslashes just before this byte
        var previousOther = false
        var escapesDone = 0
        var holdsBackslash = false
        for position in start..<bytes.count {
            let byte = bytes[position]
            let escaped = run % 2 == 1
            run = byte == UInt8(ascii: "\\") ? run + 1 : 0
            if escaped, position >= escapesDone {
                if !referenceEscape(bytes, at: position - 1, done: &escapesDone) { valid = false }
            }
            let quote = byte == UInt8(ascii: "\"") && !escaped
            if quote {
                // A closing quote of a string that holds a backslash has the high bit.
                entries.append(position | (inString && holdsBackslash ? 1 << 31 : 0))
                inString.toggle()
                holdsBackslash = false
                previousOther = false
                continue
            }
            if inString {
                if byte < 0x20 { valid = false }
                if byte == UInt8(ascii: "\\") { holdsBackslash = true }
                previousOther = false
                continue
            }
            let space = [0x20, 0x09, 0x0A, 0x0D].contains(byte)
            let op = Array("{}[]:,".utf8).contains(byte)
            if op { entries.append(position) }
            let other = !space && !op
            if other, !previousOther { entries.append(position) }
            previousOther = other
        }
        // A text that ends in an odd run of backslashes ends in an escape of nothing.
        if inString || entries.isEmpty || run % 2 == 1 { valid = false }
        if UTF8Check.firstInvalid(
            bytes.withUnsafeBufferPointer { $0 }, from: start, to: bytes.count) != nil
        {
            valid = false
        }
        return (entries, valid)
    }

    /// Whether the escape whose backslash is at `at` is one JSON has (a \u pair as one).
    static func referenceEscape(_ bytes: [UInt8], at: Int, done: inout Int) -> Bool {
        guard at + 1 < bytes.count else { return false }
        if JSONEscape.character(after: bytes[at + 1]) != nil { return true }
        guard bytes[at + 1] == UInt8(ascii: "u"), at + 6 <= bytes.count,
            let unit = UInt32(String(decoding: bytes[at + 2..<at + 6], as: UTF8.self), radix: 16),
            bytes[at + 2..<at + 6].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { return false }
        if (0xDC00...0xDFFF).contains(unit) { return false }
        guard (0xD800...0xDBFF).contains(unit) else { return true }
        guard at + 12 <= bytes.count, bytes[at + 6] == UInt8(ascii: "\\"), bytes[at + 7] == UInt8(ascii: "u"),
            bytes[at + 8..<at + 12].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") }),
            let low = UInt32(String(decoding: bytes[at + 8..<at + 12], as: UTF8.self), radix: 16),
            (0xDC00...0xDFFF).contains(low)
        else { return false }
        done = at + 12
        return true
    }

    /// Every kernel's index of `bytes`, checked against the reference.
    static func expectKernelsAgree(
        _ bytes: [UInt8], _ name: @autoclosure () -> String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let start = JSONEscape.textStart(of: bytes)
        let expected = reference(bytes, start: start)
        for kernel in kernels {
            var index = cjson_index(positions: nil, count: 0, capacity: 0)
            defer { cjson_index_free(&index) }
            let status = bytes.withUnsafeBufferPointer {
                cjson_index_build_with(kernel, $0.baseAddress!, start, bytes.count, &index)
            }
            let entries = (0..<index.count).map { Int(index.positions[$0]) }
            #expect(
                status == (expected.valid ? 0 : 1), "kernel \(kernel), \(name()): status \(status)",
                sourceLocation: sourceLocation)
            if expected.valid {
                #expect(
                    entries == expected.entries, "kernel \(kernel), \(name()): \(entries) vs \(expected.entries)",
                    sourceLocation: sourceLocation)
                #expect(index.positions[index.count] == UInt32(bytes.count), sourceLocation: sourceLocation)
            }
        }
    }

    /// What may stand at an offset: each structural character, quotes, backslash runs, escapes,
    /// control characters, and UTF-8 sequences of every length (some cut, some not UTF-8).
    static let pieces: [[UInt8]] =
        [
            "{", "}", "[", "]", ":", ",", "\"", "\\", "\\\\", "\\\\\\", "\\\"", "\\\\\"", "\\u00e9", "\\ud83d\\ude00",
            "\\ud83d", "\\ude00", "\\x", "\\u12G4", " ", "\t", "\n", "\r", "é", "€", "😀", "true", "-1.5e3", "x",
        ].map { Array($0.utf8) } + [
            [0x01], [0x1F], [0x7F], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xFF], [0xC0, 0x80],
            [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
        ]

    /// Texts with each piece at each offset from 0 to 130 (across two block edges), inside a
    /// string and outside one.
    static var placed: [[UInt8]] {
        var texts: [[UInt8]] = []
        for piece in pieces {
            for offset in 0...130 {
                let pad = [UInt8](repeating: UInt8(ascii: "a"), count: offset)
                texts.append(Array("{\"k\": \"".utf8) + pad + piece + Array("z\", \"n\": [1, 2]}".utf8))
                texts.append(Array("[\"".utf8) + pad + Array("\", ".utf8) + piece + Array(" , 7]".utf8))
                texts.append(
                    [UInt8](repeating: UInt8(ascii: " "), count: offset) + piece + Array(" {\"a\":[true]}".utf8))
            }
        }
        return texts
    }

    @Test("every kernel gives the index's definition, each kind of byte at every offset of a block")
    func kernelsAtEveryOffset() {
        #expect(Self.kernels.count >= 2, "kernels: \(Self.kernels)")
        for (number, text) in Self.placed.enumerated() {
            Self.expectKernelsAgree(text, "text \(number): \(String(decoding: text, as: UTF8.self))")
        }
    }

    @Test("every kernel gives the index's definition on random bytes of JSON's alphabet")
    func kernelsOnRandomBytes() {
        var random = SeededGenerator(seed: 0x1DE8)
        let alphabet = Array("{}[]:,\"\\ \t\nabu0123456789e-.".utf8) + [0x01, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F]
        for number in 0..<3_000 {
            let length = Int.random(in: 1...300, using: &random)
            let text = (0..<length).map { _ in alphabet.randomElement(using: &random)! }
            Self.expectKernelsAgree(text, "random \(number): \(text)")
        }
    }

    // MARK: The tape

    /// A shape that reads some keys at two levels and keeps other values whole.
    static let demand = JSONDemand.members(
        [
            .init(key: "id", demand: .everything), .init(key: "k", demand: .everything),
            .init(key: "user", demand: .members([.init(key: "name", demand: .everything)], keepsOtherKeys: false)),
            .init(
                key: "items",
                demand: .members(
                    [.init(key: "n", demand: .everything), .init(key: "tags", demand: .everything)],
                    keepsOtherKeys: false)),
            .init(key: "a", demand: .everything),
        ], keepsOtherKeys: false)

    /// The tape read from the index and the tape read byte by byte: the same nodes, or both none.
    static func expectSameTape(
        _ bytes: [UInt8], _ name: @autoclosure () -> String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        guard let shape = TapeShape(demand) else {
            Issue.record("no shape", sourceLocation: sourceLocation)
            return
        }
        var indexed = JSONTape()
        var byBytes = JSONTape()
        defer {
            indexed.free()
            byBytes.free()
        }
        bytes.withUnsafeBufferPointer { buffer in
            let fromIndex = indexed.scan(buffer, shape: shape)
            let fromBytes = byBytes.scanByBytes(buffer, shape: shape)
            #expect(fromIndex == fromBytes, "\(name())", sourceLocation: sourceLocation)
            guard fromIndex != nil, fromIndex == fromBytes else { return }
            let nodes = zip(indexed.nodes, byBytes.nodes).allSatisfy {
                $0.kind == $1.kind && $0.escaped == $1.escaped && $0.start == $1.start && $0.end == $1.end
                    && $0.first == $1.first && $0.count == $1.count
            }
            #expect(
                nodes && indexed.nodes.count == byBytes.nodes.count && Array(indexed.slots) == Array(byBytes.slots),
                "\(name())", sourceLocation: sourceLocation)
        }
        // Accepting exactly what the parser accepts.
        let parses = (try? JSONParser.parse(bytes)) != nil
        if !parses {
            #expect(
                bytes.withUnsafeBufferPointer { indexed.scan($0, shape: shape) } == nil, "\(name())",
                sourceLocation: sourceLocation)
        }
    }

    @Test("the tape from the index is the tape from the bytes, each kind of byte at every offset")
    func tapeAtEveryOffset() {
        for (number, text) in Self.placed.enumerated() {
            Self.expectSameTape(text, "text \(number): \(String(decoding: text, as: UTF8.self))")
        }
    }

    static let records = [
        #"{"id": 7, "k": "v", "user": {"name": "Ann", "x": [1, {"y": null}]}, "items": [{"n": 1, "tags": ["a"]}, {"n": -2.5e-3}], "a": {"deep": [[], {}]}}"#,
        #"{"id": "x\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t", "user": null, "items": [], "a": [true, false, null]}"#,
        #"  {"k":1,"k2":{"a":"b"}  ,"a" :  "\\" }  "#, #"[{"id": 1}, 2, "three"]"#, #""root""#, "12", "-0.0e+5",
        #"{"id": 01}"#, #"{"id": 1.}"#, #"{"id": .5}"#, #"{"id": 1e}"#, #"{"id": tru}"#, #"{"id": nulll}"#,
        #"{"id": 1 2}"#, #"{"id" 1}"#, #"{"id": 1,}"#, #"{,"id": 1}"#, #"[1,]"#, #"[,1]"#, #"{"id": [1 }"#,
        #"{"a": {"b": 1}"#, #"{"id": 1}}"#, #"{"id": 1} x"#, #"{"id": "\u12"}"#, #"{"id": "\ud800"}"#,
        #"{"id": "\udc00"}"#, #"{"id": "a\qb"}"#, "{\"id\": \"tab\there\"}", #"{"i\u0064": 1}"#, #"{"id": 1, "id": 2}"#,
        #"{"items": [{"n": 1, "n": 2}]}"#, "\u{FEFF}{\"id\": 1}", "", "   ", #"{"a": [1, 2, 3] "b": 1}"#,
        #"{"a": "x" "b": 1}"#, #"{"a" : [ { "b" : [ [ ] ] } ] }"#, #"{"id": -}"#, #"{"id": -01}"#, #"{"id": 1e+}"#,
        #"{"id": 2E10, "k": 0.1e-2}"#, #"{"id": "\/"}"#, #"{"\"": 1}"#, #"{"a\\": 1, "k": 2}"#,
    ].map { Array($0.utf8) }

    @Test("the tape from the index is the tape from the bytes: grammar, numbers, literals, escapes, depth")
    func tapeOnRecords() {
        for (number, record) in Self.records.enumerated() {
            Self.expectSameTape(record, "record \(number): \(String(decoding: record, as: UTF8.self))")
        }
        for levels in [511, 512, 513] {
            let nested =
                Array(#"{"a": "#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: levels - 1)
                + [UInt8](repeating: UInt8(ascii: "]"), count: levels - 1) + Array("}".utf8)
            Self.expectSameTape(nested, "nested \(levels)")
        }
    }

    /// nst/JSONTestSuite's parsing cases, brought by hand (`tools/json-test-suite` runs this with
    /// the folder): the tape from the index accepts exactly the files the parser accepts, with the
    /// tape from the bytes.
    @Test(
        "JSONTestSuite's parsing cases: the tape from the index accepts what the parser accepts",
        .enabled(if: ProcessInfo.processInfo.environment["MAPPINGS_JSON_TEST_SUITE"] != nil))
    func jsonTestSuite() throws {
        let folder = ProcessInfo.processInfo.environment["MAPPINGS_JSON_TEST_SUITE"] ?? ""
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }
        #expect(names.count > 300)
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name)))
            Self.expectSameTape(bytes, name)
            Self.expectKernelsAgree(bytes, name)
        }
    }

    @Test("the tape from the index is the tape from the bytes on mutated records")
    func tapeOnMutations() {
        var random = SeededGenerator(seed: 0x7A9E)
        let fragments =
            Array("{}[]:,\"\\ \t\n0123456789-+.eEtrufalsn".utf8).map { [$0] }
            + ["\\u00e9", "\\ud83d\\ude00", "é", "😀", "\"id\": ", ", \"k\": \"v\"", "null", "[[", "]]"].map {
                Array($0.utf8)
            } + [[0xFF], [0xC3], [0x01]]
        var accepted = 0
        for iteration in 0..<20_000 {
            var bytes = Self.records[iteration % 3]
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let position = Int.random(in: 0...bytes.count, using: &random)
                if Bool.random(using: &random) || bytes.isEmpty {
                    bytes.insert(contentsOf: fragments.randomElement(using: &random)!, at: position)
                } else {
                    bytes.removeSubrange(
                        position..<min(bytes.count, position + Int.random(in: 1...4, using: &random)))
                }
            }
            if (try? JSONParser.parse(bytes)) != nil { accepted += 1 }
            Self.expectSameTape(bytes, "mutation \(iteration): \(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(accepted > 500, "\(accepted) mutations are JSON")
    }
}
