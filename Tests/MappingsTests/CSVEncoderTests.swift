import Foundation
import Mappings
import MappingsTestSupport
import Testing

/// The CSV format's encoder: a header of the output's properties, a row per record, RFC 4180
/// quoting; what it writes the decoder reads back as it was.
@Suite("the CSV format: records out as rows")
struct CSVEncoderTests {
    static func encode(_ records: [String], columns: [String]) throws -> String {
        var encoder = CSVEncoder(columns: columns)
        var output: [UInt8] = []
        try encoder.start(into: &output)
        for record in records {
            try Array(record.utf8).withUnsafeBytes { raw in
                Result { () throws(FormatFailure) in try encoder.encode(raw, into: &output) }
            }.get()
        }
        try encoder.finish(into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    @Test("cells: text, exact numbers, booleans, JSON text for objects and arrays, empty for null, \"\" for empty text")
    func cells() throws {
        let text = try Self.encode(
            [
                #"{"a":"plain","b":1.10,"c":true,"d":{"x":[1,"y"]},"e":null,"f":""}"#,
                #"{"a":"x, y","b":18446744073709551617,"c":false,"d":[],"f":"say \"hi\"\nthere"}"#,
            ], columns: ["a", "b", "c", "d", "e", "f"])
        #expect(
            text
                == "a,b,c,d,e,f\r\nplain,1.10,true,\"{\"\"x\"\":[1,\"\"y\"\"]}\",,\"\"\r\n\"x, y\",18446744073709551617,false,[],,\"say \"\"hi\"\"\nthere\"\r\n"
        )
    }

    @Test("a header, and nothing else, when no record comes")
    func headerOnly() throws {
        #expect(try Self.encode([], columns: ["id", "a,b"]) == "id,\"a,b\"\r\n")
    }

    @Test("a record with a key the header lacks, or not an object, is a failure naming it")
    func refused() {
        #expect(throws: FormatFailure.self) { try Self.encode([#"{"a":1,"z":2}"#], columns: ["a"]) }
        do {
            _ = try Self.encode([#"{"a":1}"#, #"[1]"#], columns: ["a"])
        } catch let failure as FormatFailure {
            #expect(
                failure.message
                    == "record 2 of the output is a JSON array, not an object: a CSV row is an object's members")
            #expect(failure.record == 2)
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("round trip: random records written and read back are the records, null and empty text apart")
    func roundTrip() throws {
        var random = SeededGenerator(seed: 0x7217)
        let pieces = ["a", "b c", ",", "\"", "\r\n", "\n", "\r", "é", "😀", "1", " "]
        let columns = ["id", "text", "more text", "x.y"]
        for _ in 0..<50 {
            var objects: [JSONValue] = []
            for index in 0..<Int.random(in: 0...20, using: &random) {
                var members: [(key: String, value: JSONValue)] = [("id", .string("\(index)"))]
                for column in columns.dropFirst() {
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: members.append((column, .null))
                    case 1: members.append((column, .string("")))
                    default:
                        let text = (0..<Int.random(in: 1...5, using: &random)).map { _ in
                            pieces.randomElement(using: &random)!
                        }.joined()
                        members.append((column, .string(text)))
                    }
                }
                objects.append(.object(JSONObject(members)))
            }
            let csv = try Self.encode(objects.map { JSONWriter.string($0) }, columns: columns)
            var decoder = CSVDecoder()
            let decoded = try decoder.decodeAll(Array(csv.utf8))
            #expect(decoded.rejects.isEmpty)
            let read = try decoded.text.split(separator: 0x0A).map { try JSONValue(parsing: Array($0)) }
            #expect(read == objects, "\(csv.debugDescription)")
        }
    }
}
