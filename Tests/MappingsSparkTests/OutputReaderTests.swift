import Foundation
import MappingsJSON
import Testing

@testable import MappingsEncoding
@testable import MappingsSpark

/// `OutputReader`, which the Spark, Python and Arrow encodings read a record's output with:
/// strings are read eight bytes a turn up to a quote or a backslash, so every place one can
/// stand in a word, and runs on either side of it, must read as the parser reads them.
@Suite struct OutputReaderTests {
    /// The string `text` (JSON text with its quotes) as `appendString` and `withString` read it.
    static func read(_ text: String) throws -> (appended: String, viewed: String, end: Int) {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            var reader = OutputReader(bytes: buffer)
            var appended: [UInt8] = []
            try reader.appendString(into: &appended)
            let end = reader.position
            var viewer = OutputReader(bytes: buffer)
            let viewed = try viewer.withString { String(decoding: $0, as: UTF8.self) }
            #expect(viewer.position == end)
            return (String(decoding: appended, as: UTF8.self), viewed, end)
        }
    }

    @Test func stringsReadAsTheParserReadsThemWhereverQuotesAndEscapesStand() throws {
        let pieces = [#"\""#, #"\\"#, #"\/"#, #"\n"#, #"\u00e9"#, #"\ud83d\ude00"#, "é", "😀", "\u{7F}"]
        for piece in pieces {
            for before in 0..<20 {
                for after in [0, 1, 7, 8, 9, 17] {
                    let inner = String(repeating: "a", count: before) + piece + String(repeating: "b", count: after)
                    let expected = try JSONParser.parse("[\"\(inner)\"]")
                    guard case .array(let values) = expected, case .string(let string) = values.first else {
                        Issue.record("the parser read \(inner) as \(expected)")
                        continue
                    }
                    // With text after the string, as in a record (the read stops at its closing
                    // quote), and without (the closing quote among the last bytes, read one by one).
                    for after in [#","next":"x"}"#, ""] {
                        let text = "\"" + inner + "\"" + after
                        let read = try Self.read(text)
                        #expect(read.appended == string, "\(text)")
                        #expect(read.viewed == string, "\(text)")
                        #expect(read.end == inner.utf8.count + 2, "\(text)")
                    }
                }
            }
        }
    }

    @Test func anUnterminatedStringIsAFailure() {
        for length in 0..<20 {
            let text = "\"" + String(repeating: "z", count: length)
            #expect(throws: EncodingFailure.self) { try Self.read(text) }
        }
    }
}
