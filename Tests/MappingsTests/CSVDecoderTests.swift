import Foundation
import Mappings
import MappingsTestSupport
import Testing

/// The CSV format's decoder: RFC 4180 rows as JSON objects, each on the line its row starts
/// on; rows it cannot read rejected with their places; the same records however the bytes
/// come (every split, byte by byte, random pieces, flipped and cut bytes).
@Suite("the CSV format: rows in as JSON objects")
struct CSVDecoderTests {
    /// What a decoder made of `bytes`, one entry a line: `3: {…}` for a record, `3: reject …`
    /// for a reject (its message and place), `3:` for a line that is no record; or the failure.
    static func transcript(_ bytes: [UInt8], pieces: [Int]? = nil) -> String {
        var decoder = CSVDecoder()
        var records = DecodedRecords()
        var failure: FormatFailure?
        do throws(FormatFailure) {
            var start = 0
            for size in pieces ?? [bytes.count] where start < bytes.count {
                let end = min(bytes.count, start + size)
                try bytes[start..<end].withUnsafeBytes { raw in
                    Result { () throws(FormatFailure) in try decoder.decode(raw, into: &records) }
                }.get()
                start = end
            }
            if start < bytes.count {
                try bytes[start...].withUnsafeBytes { raw in
                    Result { () throws(FormatFailure) in try decoder.decode(raw, into: &records) }
                }.get()
            }
            try decoder.finish(into: &records)
        } catch {
            failure = error
        }
        return render(records) + (failure.map { "failure: \($0.description)\n" } ?? "")
    }

    /// `records` as `transcript` shows them.
    static func render(_ records: DecodedRecords) -> String {
        var out = ""
        var line = 0
        var rejects = records.rejects[...]
        func rejectsBefore(_ offset: Int) {
            while let first = rejects.first, first.at <= offset {
                rejects.removeFirst()
                line += 1
                out +=
                    "\(line): reject \(first.reject.issueMessage) input \(String(decoding: first.reject.input, as: UTF8.self).debugDescription)\n"
                line += first.reject.lines - 1
            }
        }
        let text = records.text
        var start = 0
        while let end = text[start...].firstIndex(of: 0x0A) {
            rejectsBefore(start)
            line += 1
            out += "\(line):" + (end > start ? " " + String(decoding: text[start..<end], as: UTF8.self) : "") + "\n"
            start = end + 1
        }
        rejectsBefore(text.count)
        #expect(line == records.lines, "the lines counted are the lines given")
        return out
    }

    static func transcript(_ text: String, pieces: [Int]? = nil) -> String {
        transcript(Array(text.utf8), pieces: pieces)
    }

    @Test(
        "RFC 4180: quotes, doubled quotes, commas and line ends in quotes, CR LF, a byte order mark, empty fields",
        arguments: [
            ("a,b\n1,2\n", "1:\n2: {\"a\":\"1\",\"b\":\"2\"}\n"),
            ("a,b\r\n1,2\r\n", "1:\n2: {\"a\":\"1\",\"b\":\"2\"}\n"),
            ("a,b\n1,2", "1:\n2: {\"a\":\"1\",\"b\":\"2\"}\n"),
            ("\u{FEFF}a,b\n1,2\n", "1:\n2: {\"a\":\"1\",\"b\":\"2\"}\n"),
            ("a,b\n\"x, y\",\"say \"\"hi\"\"\"\n", "1:\n2: {\"a\":\"x, y\",\"b\":\"say \\\"hi\\\"\"}\n"),
            (
                "a,b\n\"one\ntwo\",3\n4,5\n",
                "1:\n2: {\"a\":\"one\\ntwo\",\"b\":\"3\"}\n3:\n4: {\"a\":\"4\",\"b\":\"5\"}\n"
            ),
            ("a,b\r\n\"one\r\ntwo\",3\r\n", "1:\n2: {\"a\":\"one\\r\\ntwo\",\"b\":\"3\"}\n3:\n"),
            ("a,b,c\n,\"\",x\n", "1:\n2: {\"a\":null,\"b\":\"\",\"c\":\"x\"}\n"),
            ("a,b\n1,2\n\n3,4\n", "1:\n2: {\"a\":\"1\",\"b\":\"2\"}\n3:\n4: {\"a\":\"3\",\"b\":\"4\"}\n"),
            ("a,b\n1,\n", "1:\n2: {\"a\":\"1\",\"b\":null}\n"),
            ("user.name,é\nAnn,ü\n", "1:\n2: {\"user.name\":\"Ann\",\"é\":\"ü\"}\n"),
            ("a\n\"\"\"\"\n", "1:\n2: {\"a\":\"\\\"\"}\n"),
            ("a,b\n", "1:\n"),
            ("", ""),
        ])
    func rows(text: String, expected: String) {
        #expect(Self.transcript(text) == expected)
    }

    @Test(
        "a row it cannot read is a reject naming its line, record and byte; the next line reads on",
        arguments: [
            (
                "a,b\n1,2\n3\n4,5\n",
                "1:\n2: {\"a\":\"1\",\"b\":\"2\"}\n3: reject the row has 1 field, the header 2, at line 3 (record 2, byte 8) input \"3\"\n4: {\"a\":\"4\",\"b\":\"5\"}\n"
            ),
            (
                "a,b\n1,2,3\r\n4,5\r\n",
                "1:\n2: reject the row has 3 fields, the header 2, at line 2 (record 1, byte 4) input \"1,2,3\"\n3: {\"a\":\"4\",\"b\":\"5\"}\n"
            ),
            (
                "a,b\nx\"y,2\n4,5\n",
                "1:\n2: reject the row is not CSV: a quote inside an unquoted field (quote the whole field and double the quote: \"a \"\"b\"\"\") (column 2 of line 2), at line 2 (record 1, byte 4) input \"x\\\"y,2\"\n3: {\"a\":\"4\",\"b\":\"5\"}\n"
            ),
            (
                "a,b\n\"x\"y,2\n4,5\n",
                "1:\n2: reject the row is not CSV: text after a closing quote (a field is quoted whole) (column 4 of line 2), at line 2 (record 1, byte 4) input \"\\\"x\\\"y,2\"\n3: {\"a\":\"4\",\"b\":\"5\"}\n"
            ),
            (
                "a,b\n1,2\n\"open,3\n4,5\n",
                "1:\n2: {\"a\":\"1\",\"b\":\"2\"}\n3: reject the row is not CSV: a quoted field that never closes (a quote is missing) (column 1 of line 3), at line 3 (record 2, byte 8) input \"\\\"open,3\\n4,5\"\n"
            ),
            (
                "a,b\n\"two\nlines\",2,9\n4,5\n",
                "1:\n2: reject the row has 3 fields, the header 2, at line 2 (record 1, byte 4) input \"\\\"two\\nlines\\\",2,9\"\n4: {\"a\":\"4\",\"b\":\"5\"}\n"
            ),
        ])
    func rejects(text: String, expected: String) {
        #expect(Self.transcript(text) == expected)
    }

    @Test("a field that is not UTF-8 is a reject of its row")
    func notUTF8() {
        let bytes: [UInt8] = Array("a,b\n1,".utf8) + [0xFF, 0xFE] + Array("\n3,4\n".utf8)
        #expect(
            Self.transcript(bytes)
                == "1:\n2: reject the row is not CSV: a field that is not UTF-8 (column 3 of line 2), at line 2 (record 1, byte 4) input \"1,\u{FFFD}\u{FFFD}\"\n3: {\"a\":\"3\",\"b\":\"4\"}\n"
        )
    }

    @Test(
        "a header it cannot read ends the input, naming the byte",
        arguments: [
            (
                "id,name,id\n1,a,2\n",
                "failure: byte 0: the header names the column \"id\" twice: name every column once\n"
            ),
            ("id,,x\n1,2,3\n", "failure: byte 0: the header leaves column 2 unnamed: name every column\n"),
            (
                "\n\nid,\"na\"me\n1,2\n",
                "failure: byte 2: the header is not CSV: text after a closing quote (a field is quoted whole) (line 3, column 8)\n"
            ),
            (
                "\u{FEFF}a,a\n", "failure: byte 3: the header names the column \"a\" twice: name every column once\n"
            ),
        ])
    func header(text: String, expected: String) {
        #expect(Self.transcript(text) == expected)
    }

    /// Every edge in one input, cut in two at every byte, and fed a byte at a time: the same.
    static let edges =
        "\u{FEFF}id,name,note\r\n1,\"Smith, Ann\",\"say \"\"hi\"\"\"\r\n2,,\"\"\r\n\r\n3,\"two\r\nlines\",é\r\n4,ragged\r\n5,\"x\"y,z\r\n6,last,\"end\"\r\n"

    @Test("a record split across reads at every byte boundary reads as when whole")
    func everySplit() {
        let bytes = Array(Self.edges.utf8)
        let whole = Self.transcript(bytes)
        #expect(whole.contains("reject the row has 2 fields"))
        #expect(whole.contains("5: {\"id\":\"3\",\"name\":\"two\\r\\nlines\",\"note\":\"é\"}"))
        for cut in 0...bytes.count {
            #expect(Self.transcript(bytes, pieces: [cut]) == whole, "cut at byte \(cut)")
        }
        #expect(Self.transcript(bytes, pieces: Array(repeating: 1, count: bytes.count)) == whole)
    }

    /// A valid CSV of `rows` rows whose cells hold commas, quotes, line ends, non-ASCII text
    /// and empty text, some ragged.
    static func randomCSV(rows: Int, using random: inout SeededGenerator) -> [UInt8] {
        let pieces = ["a", "b c", ",", "\"", "\r\n", "\n", "é", "😀", "1", "42", " "]
        var text = "k1,k2,k3\r\n"
        for _ in 0..<rows {
            let count = Int.random(in: 0..<10, using: &random) == 0 ? 2 : 3
            text +=
                (0..<count).map { _ in
                    let cell = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                        pieces.randomElement(using: &random)!
                    }
                    .joined()
                    return cell.unicodeScalars.contains(where: { ",\"\r\n".unicodeScalars.contains($0) })
                        || Bool.random(using: &random)
                        ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
                }.joined(separator: ",") + (Bool.random(using: &random) ? "\r\n" : "\n")
        }
        return Array(text.utf8)
    }

    @Test("random pieces: the same records as whole, every line a JSON object of the header's keys or no record")
    func randomPieces() throws {
        var random = SeededGenerator(seed: 0xC5F)
        for _ in 0..<40 {
            let bytes = Self.randomCSV(rows: 30, using: &random)
            let whole = Self.transcript(bytes)
            var pieces: [Int] = []
            var left = bytes.count
            while left > 0 {
                let size = Int.random(in: 1...64, using: &random)
                pieces.append(size)
                left -= size
            }
            #expect(Self.transcript(bytes, pieces: pieces) == whole)
            var decoder = CSVDecoder()
            let records = try decoder.decodeAll(bytes)
            // Every line of the input is a record's, a reject's or the header's.
            #expect(records.lines == bytes.count { $0 == 0x0A })
            for line in records.text.split(separator: 0x0A) {
                guard case .object(let object) = try JSONValue(parsing: Array(line)) else {
                    Issue.record("not an object: \(String(decoding: line, as: UTF8.self))")
                    continue
                }
                #expect(object.members.map(\.key) == ["k1", "k2", "k3"])
            }
        }
    }

    @Test("flipped and cut bytes never crash nor hang: each piece of the input is a record, a reject or a failure")
    func fuzz() {
        var random = SeededGenerator(seed: 0xF022)
        let special: [UInt8] = [0x22, 0x2C, 0x0A, 0x0D, 0xFF, 0xC3, 0x00, 0xEF]
        for round in 0..<300 {
            var bytes = Self.randomCSV(rows: 12, using: &random)
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = special.randomElement(using: &random)!
                case 1: bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
                default: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...20, using: &random)))
                }
                if bytes.isEmpty { break }
            }
            if round % 3 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random))) }
            let whole = Self.transcript(bytes)
            #expect(Self.transcript(bytes, pieces: [Int.random(in: 1...bytes.count + 1, using: &random)]) == whole)
            #expect(Self.transcript(bytes, pieces: Array(repeating: 7, count: bytes.count / 7 + 1)) == whole)
            // No line of the input is lost: the transcript's lines reach the last line that holds anything.
            guard !whole.contains("failure:") else { continue }
            let lines = whole.split(separator: "\n").count
            let inputLines = bytes.count { $0 == 0x0A } + (bytes.last == 0x0A || bytes.isEmpty ? 0 : 1)
            #expect(lines <= inputLines)
        }
    }
}
