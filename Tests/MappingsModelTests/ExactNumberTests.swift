import Foundation
import Mappings
import MappingsTestSupport
import Testing

/// Numbers keep their digits from the payload to the output: nothing is rounded unless the
/// declared type asks, and a type that cannot hold a value says so.
@Suite("exact numbers, end to end")
struct ExactNumberTests {
    static let text = """
        {
            "@models": { "P": { "price": "Decimal?", "text": "String?", "raw": "JSON?", "count": "Int?", "ratio": "Double?" } },
            "$P": {
                "@class": "P",
                "price": { "@keyPath": "price", "@optional": true },
                "text": { "@keyPath": "text", "@optional": true },
                "raw": { "@keyPath": "raw", "@optional": true },
                "count": { "@keyPath": "count", "@optional": true },
                "ratio": { "@keyPath": "ratio", "@optional": true }
            }
        }
        """

    private func map(_ json: String) throws -> (String, [String]) {
        let result = try Mapper(catalog: load(Self.text)).object(from: JSONParser.parse(json), context: "$P")
        return (JSONWriter.string(result.value), result.issues.map(\.description))
    }

    @Test(
        "the reader keeps every literal a double would change or respell",
        arguments: [
            ("123456789.123456789", "number"), ("12345678901234567890.123456789", "number"),
            ("18446744073709551617", "number"), ("-9223372036854775809", "number"), ("1e400", "number"),
            ("1.0", "number"), ("2.50", "number"), ("1E2", "number"), ("0.30000000000000001", "number"),
            ("1.5", "double"), ("-122.4194", "double"), ("0.1", "double"), ("1e+300", "double"),
            ("9223372036854775807", "integer"), ("-9223372036854775808", "integer"), ("0", "integer"),
        ])
    func reader(literal: String, kind: String) throws {
        let value = try JSONParser.parse(literal)
        switch (value, kind) {
        case (.number(let number), "number"): #expect(number.literal == literal)
        case (.double, "double"), (.integer, "integer"): break
        default: Issue.record("\(literal) read as \(value), expected a \(kind)")
        }
        #expect(JSONWriter.string(value) == literal, "written back as read")
    }

    @Test("Decimal keeps every digit, String the literal, JSON passes any number through")
    func keptDigits() throws {
        #expect(try map(#"{"price": 123456789.123456789}"#).0.contains(#""price":123456789.123456789"#))
        #expect(
            try map(#"{"price": 12345678901234567890.123456789}"#).0.contains(
                #""price":12345678901234567890.123456789"#))
        #expect(try map(#"{"text": 18446744073709551617}"#).0.contains(#""text":"18446744073709551617""#))
        #expect(try map(#"{"text": -9223372036854775809}"#).0.contains(#""text":"-9223372036854775809""#))
        #expect(try map(#"{"text": 2.50}"#).0.contains(#""text":"2.50""#))
        let (raw, issues) = try map(#"{"raw": {"a": [18446744073709551617, -9223372036854775809, 1.10, 1e400, 0.1]}}"#)
        #expect(raw.contains(#""raw":{"a":[18446744073709551617,-9223372036854775809,1.10,1e400,0.1]}"#))
        #expect(issues == [])
    }

    @Test(
        "a number its type cannot hold is an issue naming the payload path, never a silent neighbour",
        arguments: [
            (
                #"{"count": -9223372036854775809}"#,
                "$.count: expected Int, found number -9223372036854775809, which is outside Int's range"
            ),
            (
                #"{"count": 18446744073709551616}"#,
                "$.count: expected Int, found number 18446744073709551616, which is outside Int's range"
            ),
            (#"{"count": 1e19}"#, "$.count: expected Int, found number 1e19, which is outside Int's range"),
            (#"{"count": 2.5}"#, "$.count: expected Int, found number 2.5, which is not a whole number"),
            (
                #"{"count": "99999999999999999999"}"#,
                "$.count: expected Int, found string \"99999999999999999999\", which is outside Int's range"
            ),
            (
                #"{"ratio": 123456789.123456789}"#,
                "$.ratio: expected Double, found number 123456789.123456789, which has more digits than a Double keeps (it would read as 123456789.12345679)"
            ),
            (
                #"{"ratio": 9007199254740993}"#,
                "$.ratio: expected Double, found number 9007199254740993, which has more digits than a Double keeps"
            ),
            (#"{"ratio": 1e400}"#, "$.ratio: expected Double, found number 1e400, which is outside Double's range"),
            (
                #"{"price": 99999999999999999999999999999999999999.9}"#,
                "$.price: expected Decimal, found number 99999999999999999999999999999999999999.9, which has more digits than a Decimal keeps"
            ),
            (
                #"{"price": 1e-300}"#,
                "$.price: expected Decimal, found number 1e-300, which has more digits than a Decimal keeps"
            ),
        ])
    func outOfReach(json: String, issue: String) throws {
        let (output, issues) = try map(json)
        #expect(issues.count == 1)
        #expect(issues.first?.hasPrefix(issue) == true, "\(issues)")
        #expect(!output.contains("e+19") && !output.contains("-9223372036854775808"), "\(output)")
    }

    @Test(
        "numbers a type holds exactly convert, however they are written",
        arguments: [
            (#"{"count": 1.0}"#, #""count":1"#), (#"{"count": 1e3}"#, #""count":1000"#),
            (#"{"count": -9223372036854775808}"#, #""count":-9223372036854775808"#),
            (#"{"count": "9.0e1"}"#, #""count":90"#), (#"{"ratio": 2.50}"#, #""ratio":2.5"#),
            (#"{"ratio": 9007199254740992}"#, #""ratio":9007199254740992"#),
            (#"{"ratio": "0.1"}"#, #""ratio":0.1"#), (#"{"price": 1.10}"#, #""price":1.1"#),
            (#"{"price": "-12345678901234567890.5"}"#, #""price":-12345678901234567890.5"#),
        ])
    func exact(json: String, expected: String) throws {
        let (output, issues) = try map(json)
        #expect(issues == [])
        #expect(output.contains(expected), "\(output)")
    }

    @Test("seeded literals: any integer and any decimal of up to 38 digits come back digit for digit")
    func seeded() throws {
        var generator = SeededGenerator(seed: 13)
        let mapper = try Mapper(catalog: load(Self.text))
        for _ in 0..<500 {
            let integerDigits = Int.random(in: 1...24, using: &generator)
            let fractionDigits = Int.random(in: 0...(38 - integerDigits), using: &generator)
            var literal = Bool.random(using: &generator) ? "-" : ""
            literal += String(Int.random(in: 1...9, using: &generator))
            for _ in 1..<integerDigits { literal += String(Int.random(in: 0...9, using: &generator)) }
            if fractionDigits > 0 {
                literal += "."
                for _ in 1..<fractionDigits { literal += String(Int.random(in: 0...9, using: &generator)) }
                literal += String(Int.random(in: 1...9, using: &generator))
            }
            let payload = try JSONParser.parse(#"{"price": \#(literal), "text": \#(literal), "raw": [\#(literal)]}"#)
            let result = try mapper.object(from: payload, context: "$P")
            let output = JSONWriter.string(result.value)
            #expect(result.issues.isEmpty, "\(literal): \(result.issues)")
            #expect(
                output.contains(#""price":\#(literal),"text":"\#(literal)","raw":[\#(literal)]"#),
                "\(literal): \(output)")
        }
    }
}
