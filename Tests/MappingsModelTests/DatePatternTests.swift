import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// The compiled `@dateFormat` reader gives what `DateFormatter` gives for every well-formed
/// value, and refuses, with a reason, what `DateFormatter` would read leniently into another
/// date: a short year, a contradicting weekday, a day that does not exist.
@Suite("Compiled date patterns")
struct DatePatternTests {
    static func formatter(_ pattern: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = pattern
        return formatter
    }

    static let patterns = [
        "EEE MMM dd HH:mm:ss Z yyyy",
        "yyyy-MM-dd'T'HH:mm:ss.SSSZ",
        "yyyy-MM-dd'T'HH:mm:ssXXX",
        "yyyy-MM-dd HH:mm:ss xxx",
        "dd/MM/yyyy",
        "MMMM d, yyyy h:mm a",
        "EEEE, d MMMM yyyy",
        "yyyyMMdd'T'HHmmss",
        "'at' HH 'o''clock' yyyy-MM-dd",
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "yyyy-DDD HH:mm",
        "yyyy-MM-dd'T'HH:mm:ss.SSSSSSX",
        "d.M.y kk:mm",
    ]

    /// The date `pattern` reads from `text`, or nil.
    static func date(_ pattern: String, _ text: String) -> Date? {
        try? DatePattern(pattern).read(text).get().date().get()
    }

    /// Why `pattern` refuses `text` (nil when it reads it, or gives no reason).
    static func reason(_ pattern: String, _ text: String) -> String? {
        if case .failure(let mismatch) = DatePattern(pattern).read(text) { return mismatch.reason }
        return nil
    }

    @Test("patterns payloads use are read without ICU", arguments: patterns)
    func compiled(_ pattern: String) {
        #expect(DatePattern(pattern).isCompiled)
    }

    @Test("two-digit years and abutting short fields are left to ICU", arguments: ["yy-MM-dd", "dMMyyyy", "QQQ yyyy"])
    func notCompiled(_ pattern: String) {
        #expect(!DatePattern(pattern).isCompiled)
    }

    @Test("every formatted date reads back as DateFormatter reads it", arguments: patterns)
    func sameAsFormatter(_ pattern: String) {
        let formatter = Self.formatter(pattern)
        var generator = SystemRandomNumberGenerator()
        // Zone names the compiled reader knows; others are outside what `zzz` reads.
        let zones = pattern.contains("z") ? ["UTC"] : ["UTC", "America/Los_Angeles", "Asia/Kolkata"]
        for zone in zones {
            let writer = Self.formatter(pattern)
            writer.timeZone = TimeZone(identifier: zone)
            for _ in 0..<400 {
                let date = Date(
                    timeIntervalSince1970: Double(
                        Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)) / 1000)
                let text = writer.string(from: date)
                // Compared as written: ICU counts milliseconds from 1970, a reading microseconds
                // from 2001, so the doubles may differ in their last bit, never the instant.
                #expect(
                    Self.date(pattern, text).map(JSONWriter.iso8601)
                        == formatter.date(from: text).map(JSONWriter.iso8601),
                    "\(pattern): \(text)")
            }
        }
    }

    @Test(
        "what DateFormatter reads leniently into another date is refused, with the reason",
        arguments: [
            (
                "EEE MMM dd HH:mm:ss Z yyyy", "Sun Aug 31 00:29:15 +0000 14",
                "the year is \"14\", 2 digits, but \"yyyy\" reads 4"
            ),
            (
                "EEE MMM dd HH:mm:ss Z yyyy", "Sun Aug 31 00:29:15 +0000 500",
                "the year is \"500\", 3 digits, but \"yyyy\" reads 4"
            ),
            (
                "EEE MMM dd HH:mm:ss Z yyyy", "Sun Aug 31 00:29:15 +0000 20145",
                "the year is \"20145\", 5 digits, but \"yyyy\" reads 4"
            ),
            ("EEE MMM dd HH:mm:ss Z yyyy", "Mon Aug 31 00:29:15 +0000 2014", "Aug 31 2014 is a Sunday, not a Monday"),
            ("EEE MMM dd HH:mm:ss Z yyyy", "Thu Apr 31 20:37:03 +0000 2011", "day 31 does not exist in April 2011"),
            ("EEE MMM dd HH:mm:ss Z yyyy", "Thu Apr 21 24:37:03 +0000 2011", "24:37:3 is no time of day"),
            (
                "EEE MMM dd HH:mm:ss Z yyyy", "Thursday Apr 21 20:37:03 +0000 2011",
                "it does not match \"EEE\" at \"Thursday Apr\""
            ),
            ("EEE MMM dd HH:mm:ss Z yyyy", "Thu Apr 21 20:37:03 GMT 2011", "it does not match \"Z\" at \"GMT 2011\""),
            ("EEE MMM dd HH:mm:ss Z yyyy", "Thu Apr 21 20:37:03 +0000 2011 UTC", "\" UTC\" follows the date"),
            ("dd/MM/yyyy", "1/2/2020", "the day is \"1\", 1 digit, but \"dd\" reads 2"),
            ("dd/MM/yyyy", "31/02/2020", "day 31 does not exist in February 2020"),
            ("dd/MM/yyyy", "29/02/2019", "day 29 does not exist in February 2019"),
            ("yyyy-MM-dd'T'HH:mm:ss.SSSZ", "2020-01-02T03:04:05.5+0100", "it does not match \"SSS\" at \"5+0100\""),
            ("MMMM d, yyyy h:mm a", "March 3, 2021 13:30 PM", "hour 13 does not exist on a 12-hour clock"),
            ("yyyy-DDD HH:mm", "2014-366 10:00", "day 366 of the year does not exist in 2014"),
            ("yyyy-DDD MM-dd", "2014-200 08-31", "day 200 of 2014 is Jul 19 2014, not Aug 31 2014"),
            ("yyyy-MM-dd", "0000-01-01", "there is no year 0"),
        ])
    func refused(_ pattern: String, _ text: String, _ reason: String) {
        #expect(Self.date(pattern, text) == nil, "\(text)")
        #expect(Self.reason(pattern, text) == reason)
    }

    @Test(
        "values in the exact form are read, spaces around them aside",
        arguments: [
            ("EEE MMM dd HH:mm:ss Z yyyy", " Thu Apr 21 20:37:03 +0000 2011 ", "2011-04-21T20:37:03Z"),
            ("EEE MMM dd HH:mm:ss Z yyyy", "thu apr 21 20:37:03 +0000 2011", "2011-04-21T20:37:03Z"),
            ("MMMM d, yyyy h:mm a", "March 3, 2021 12:30 AM", "2021-03-03T00:30:00Z"),
            ("yyyy-MM-dd'T'HH:mm:ss.SSSSSSX", "2021-03-03T00:30:00.123456+01", "2021-03-02T23:30:00.123456Z"),
            ("yyyy-DDD HH:mm", "2024-366 10:00", "2024-12-31T10:00:00Z"),
            ("EEE, dd MMM yyyy HH:mm:ss zzz", "Wed, 29 Aug 2012 14:40:05 PDT", "2012-08-29T21:40:05Z"),
            ("EEE, dd MMM yyyy HH:mm:ss zzz", "Wed, 29 Aug 2012 14:40:05 GMT+02:00", "2012-08-29T12:40:05Z"),
            ("d.M.y kk:mm", "1.2.33 24:00", "0033-02-01T00:00:00Z"),
        ])
    func read(_ pattern: String, _ text: String, _ written: String) throws {
        let date = try #require(Self.date(pattern, text))
        #expect(JSONWriter.iso8601(date) == written)
    }

    /// For each compiled pattern with a four-digit year: every date written with a year of 1
    /// to 3 digits (or 5) is refused, whatever the rest; never another day.
    @Test(
        "short and long years are refused in every pattern with yyyy",
        arguments: patterns.filter { $0.contains("yyyy") })
    func shortYears(_ pattern: String) {
        let formatter = Self.formatter(pattern)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: 0...2_000_000_000, using: &generator)))
            let text = formatter.string(from: date)
            let year = String(Calendar(identifier: .gregorian).component(.year, from: date))
            for short in ["1", "14", "500", "20145"] {
                let changed = text.replacingOccurrences(of: year, with: short)
                #expect(Self.date(pattern, changed) == nil, "\(pattern): \(changed)")
                #expect(Self.reason(pattern, changed) != nil, "\(pattern): \(changed)")
            }
        }
    }

    /// Every weekday but the right one is refused, for random dates.
    @Test(
        "a weekday that contradicts the date is refused",
        arguments: ["EEE MMM dd HH:mm:ss Z yyyy", "EEEE, d MMMM yyyy"])
    func weekdays(_ pattern: String) {
        let formatter = Self.formatter(pattern)
        let names =
            pattern.contains("EEEE")
            ? ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
            : ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let date = Date(
                timeIntervalSince1970: Double(Int64.random(in: -2_000_000_000...4_000_000_000, using: &generator)))
            let text = formatter.string(from: date)
            let right = try! #require(names.first { text.hasPrefix($0 + " ") || text.hasPrefix($0 + ",") })
            #expect(Self.date(pattern, text) != nil, "\(text)")
            for wrong in names where wrong != right {
                let changed = wrong + text.dropFirst(right.count)
                #expect(Self.date(pattern, changed) == nil, "\(changed)")
            }
        }
    }

    @Test("a pattern only ICU reads keeps a value only when writing it back gives the value")
    func icuCheckedByWritingBack() {
        #expect(JSONWriter.iso8601(Self.date("yy-MM-dd", "14-08-31")!) == "2014-08-31T00:00:00Z")
        #expect(Self.date("yy-MM-dd", "2014-08-31") == nil)
        #expect(
            Self.reason("yy-MM-dd", "2014-08-31")
                == "read leniently, it is \"14-08-31\" in this pattern, not the same text")
    }
}
