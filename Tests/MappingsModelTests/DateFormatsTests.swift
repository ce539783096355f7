import Foundation
import Mappings
import MappingsTestSupport
import Testing

/// Dates keep their instant: `@dateFormat` lists and named formats, and no silent wrong year.
@Suite("date formats: lists, named formats, milliseconds")
struct DateFormatsTests {
    static let text = """
        {
            "@models": { "E": { "at": "Date?" } },
            "$Plain": { "@class": "E", "at": { "@keyPath": "at", "@optional": true } },
            "$Millis": { "@class": "E", "at": { "@keyPath": "at", "@dateFormat": "@unixMilliseconds" } },
            "$Seconds": { "@class": "E", "at": { "@keyPath": "at", "@dateFormat": "@unixSeconds" } },
            "$List": { "@class": "E", "at": { "@keyPath": "at", "@dateFormat": ["dd/MM/yyyy HH:mm", "@iso8601", "@unixMilliseconds"] } },
            "$Rfc": { "@class": "E", "at": { "@keyPath": "at", "@dateFormat": ["@rfc2822", "@iso8601"] } },
            "$MillisFirst": { "@class": "E", "at": { "@keyPath": "at", "@dateFormat": ["@unixMilliseconds", "@unixSeconds"] } },
            "$MillisRange": { "@class": "E", "at": { "@keyPath": "at", "@dateFormat": "@unixMilliseconds", "@dateRange": ["1970-01-01", "1972-12-31T23:59:59Z"] } },
            "$Range": { "@class": "E", "at": { "@keyPath": "at", "@optional": true, "@dateRange": ["1990-01-01", "2100-01-01"] } }
        }
        """

    private func map(_ json: String, _ context: String) throws -> (String, [String]) {
        let result = try Mapper(catalog: load(Self.text)).object(from: JSONParser.parse(json), context: context)
        return (JSONWriter.string(result.value), result.issues.map(\.description))
    }

    @Test(
        "a number or 13-digit string that only makes sense as milliseconds is an issue suggesting @unixMilliseconds",
        arguments: [#"{"at": 1709287200123}"#, #"{"at": "1709287200123"}"#, #"{"at": 1709287200123.5}"#])
    func millisecondsWithoutFormat(json: String) throws {
        let (output, issues) = try map(json, "$Plain")
        #expect(output == #"{"at":null}"#)
        #expect(issues.count == 1)
        #expect(issues.first?.contains("which as Unix seconds is outside the years 1 to 9999") == true, "\(issues)")
        #expect(
            issues.first?.contains(#"if it counts milliseconds, set "@dateFormat": "@unixMilliseconds""#) == true)
    }

    @Test(
        "seconds read as milliseconds land before 1973, milliseconds read as seconds after 2200: the date, and a warning",
        arguments: [
            ("$Millis", #"{"at": 1453671950}"#, #"{"at":"1970-01-17T19:47:51.950Z"}"#, "before 1973", "@unixSeconds"),
            ("$Millis", #"{"at": "1453671950"}"#, #"{"at":"1970-01-17T19:47:51.950Z"}"#, "before 1973", "@unixSeconds"),
            ("$Millis", #"{"at": 0}"#, #"{"at":"1970-01-01T00:00:00Z"}"#, "before 1973", "@unixSeconds"),
            ("$Seconds", #"{"at": 99999999999}"#, #"{"at":"5138-11-16T09:46:39Z"}"#, "after 2200", "@unixMilliseconds"),
            ("$Plain", #"{"at": 8000000000}"#, #"{"at":"2223-07-06T14:13:20Z"}"#, "after 2200", "@unixMilliseconds"),
        ])
    func implausibleUnit(context: String, json: String, expected: String, when: String, format: String) throws {
        let result = try Mapper(catalog: load(Self.text)).object(from: JSONParser.parse(json), context: context)
        #expect(JSONWriter.string(result.value) == expected)
        #expect(result.issues.count == 1)
        let issue = try #require(result.issues.first)
        #expect(issue.severity == .warning)
        #expect(issue.description.contains(when), "\(issue)")
        #expect(issue.description.contains(#"set "@dateFormat": "\#(format)""#), "\(issue)")
        #expect(issue.description.contains(#""@dateRange""#))
    }

    @Test("plausible Unix times warn of nothing, and an explicit @dateRange silences the warning")
    func plausibleOrInRange() throws {
        for (context, json) in [
            ("$Millis", #"{"at": 94694400000}"#), ("$Seconds", #"{"at": 7258118400}"#),
            ("$Plain", #"{"at": 1709287200}"#), ("$Seconds", #"{"at": -86400}"#),
            ("$MillisRange", #"{"at": 1453671950}"#),
        ] {
            let (_, issues) = try map(json, context)
            #expect(issues == [], "\(context) \(json)")
        }
    }

    @Test("a date outside @dateRange is an error naming the range, whatever format read it")
    func outsideRange() throws {
        let (inside, none) = try map(#"{"at": "2024-03-01T10:00:00Z"}"#, "$Range")
        #expect(none == [])
        #expect(inside == #"{"at":"2024-03-01T10:00:00Z"}"#)
        for json in [
            #"{"at": "1989-12-31T23:59:59Z"}"#, #"{"at": 99999999999}"#, #"{"at": "Mon, 01 Jan 2101 00:00:00 +0000"}"#,
        ] {
            let (output, issues) = try map(json, "$Range")
            #expect(output == #"{"at":null}"#)
            #expect(issues.count == 1)
            #expect(
                issues.first?.contains("expected a date from 1990-01-01 to 2100-01-01 (@dateRange)") == true,
                "\(issues)")
        }
    }

    @Test(
        "@dateRange takes two ISO 8601 dates in order, on a Date",
        arguments: [
            (#"["1990-01-01"]"#, #""@dateRange" takes two ISO 8601 dates, not an array"#),
            (#""1990""#, #""@dateRange" takes two ISO 8601 dates, not a string"#),
            (#"["1990-01-01", "soon"]"#, #""@dateRange": "soon" is not an ISO 8601 date"#),
            (#"["2000-01-01", "1990-01-01"]"#, #""@dateRange": "2000-01-01" is not before "1990-01-01""#),
        ])
    func rangeDiagnostics(range: String, message: String) throws {
        let text =
            #"{ "@models": { "E": { "at": "Date" } }, "$E": { "@class": "E", "at": { "@keyPath": "at", "@dateRange": \#(range) } } }"#
        let error = #expect(throws: MappingsError.self) { try load(text) }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        let notDate =
            #"{ "@models": { "E": { "at": "Int" } }, "$E": { "@class": "E", "at": { "@keyPath": "at", "@dateRange": ["1990-01-01", "2000-01-01"] } } }"#
        let refused = #expect(throws: MappingsError.self) { try load(notDate) }
        #expect(refused?.description.contains(#""@dateRange" applies to dates, but "at" is Int"#) == true)
    }

    @Test("a reading past the year 9999 even as milliseconds suggests nothing it cannot keep")
    func farFuture() throws {
        let (_, issues) = try map(#"{"at": 1e300}"#, "$Plain")
        #expect(issues.count == 1)
        #expect(issues.first?.contains("outside the years 1 to 9999") == true)
        #expect(issues.first?.contains("@unixMilliseconds") == false)
    }

    @Test(
        "named formats read what they name",
        arguments: [
            ("$Millis", #"{"at": 1709287200123}"#, #"{"at":"2024-03-01T10:00:00.123Z"}"#),
            ("$Millis", #"{"at": "1709287200123"}"#, #"{"at":"2024-03-01T10:00:00.123Z"}"#),
            ("$Seconds", #"{"at": 1709287200}"#, #"{"at":"2024-03-01T10:00:00Z"}"#),
            ("$MillisFirst", #"{"at": 1709287200000}"#, #"{"at":"2024-03-01T10:00:00Z"}"#),
            ("$Rfc", #"{"at": "Fri, 01 Mar 2024 11:00:00 +0100"}"#, #"{"at":"2024-03-01T10:00:00Z"}"#),
            ("$Rfc", #"{"at": "2024-03-01T10:00:00Z"}"#, #"{"at":"2024-03-01T10:00:00Z"}"#),
        ])
    func named(context: String, json: String, expected: String) throws {
        let (output, issues) = try map(json, context)
        #expect(issues == [])
        #expect(output == expected)
    }

    @Test("a list is tried in order; the first format that reads the value wins")
    func list() throws {
        #expect(try map(#"{"at": "01/03/2024 10:00"}"#, "$List").0 == #"{"at":"2024-03-01T10:00:00Z"}"#)
        #expect(try map(#"{"at": "2024-03-01T10:00:00.5Z"}"#, "$List").0 == #"{"at":"2024-03-01T10:00:00.500Z"}"#)
        #expect(try map(#"{"at": 1709287200123}"#, "$List").0 == #"{"at":"2024-03-01T10:00:00.123Z"}"#)
        let (output, issues) = try map(#"{"at": "March 1st"}"#, "$List")
        #expect(output == #"{"at":null}"#)
        #expect(
            issues == [
                #"$.at: expected a date in the format "dd/MM/yyyy HH:mm" or "@iso8601" or "@unixMilliseconds", found string "March 1st" (main.mappings:6)"#
            ])
    }

    @Test(
        "serialize writes with the first format of the list",
        arguments: [
            ("$List", JSONValue.string("01/03/2024 10:00")), ("$Millis", .integer(1_709_287_200_123)),
            ("$Seconds", .integer(1_709_287_200)), ("$Rfc", .string("Fri, 01 Mar 2024 10:00:00 +0000")),
        ])
    func reverse(context: String, written: JSONValue) throws {
        let mapper = try Mapper(catalog: load(Self.text))
        let seconds = context == "$Millis" ? 1_709_287_200.123 : 1_709_287_200
        let object = try mapper.object(
            from: .object(JSONObject([("at", .string(JSONWriter.iso8601(Date(timeIntervalSince1970: seconds))))])),
            context: "$Plain")
        let payload = try mapper.payload(from: object.value, context: context)
        #expect(payload.issues.isEmpty)
        #expect(JSONWriter.string(payload.value) == JSONWriter.string(.object(JSONObject([("at", written)]))))
        let back = try mapper.object(from: JSONParser.parse(JSONWriter.string(payload.value)), context: context)
        #expect(back.value == object.value, "reads back as the same instant")
    }

    @Test("an unknown named format or an empty list fails to load, with a suggestion")
    func loadErrors() {
        let models = #""@models": { "E": { "at": "Date" } }"#
        #expect(
            failure(
                #"{ \#(models), "$E": { "@class": "E", "at": { "@keyPath": "at", "@dateFormat": "@unixMillis" } } }"#
            )
            .contains(#"error: "@unixMillis" is not a named date format"#))
        #expect(
            failure(
                #"{ \#(models), "$E": { "@class": "E", "at": { "@keyPath": "at", "@dateFormat": "@unixMillis" } } }"#
            )
            .contains(#"did you mean "@unixMilliseconds"?"#))
        #expect(
            failure(#"{ \#(models), "$E": { "@class": "E", "at": { "@keyPath": "at", "@dateFormat": [] } } }"#)
                .contains("not an empty array"))
        #expect(
            failure(
                #"{ \#(models), "$E": { "@class": "E", "at": { "@keyPath": "at", "@dateFormat": ["@iso8601", 3] } } }"#
            )
            .contains("not a number"))
    }
}
