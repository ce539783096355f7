import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// The compiled `@dateFormat` reader must give exactly what `DateFormatter` gives, for the
/// values it reads itself and (through its fallback) for every other.
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
    ]

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
        let compiled = DatePattern(pattern)
        var generator = SystemRandomNumberGenerator()
        for zone in ["UTC", "America/Los_Angeles", "Asia/Kolkata"] {
            let writer = Self.formatter(pattern)
            writer.timeZone = TimeZone(identifier: zone)
            for _ in 0..<400 {
                let date = Date(
                    timeIntervalSince1970: Double(
                        Int64.random(
                            in: -2_000_000_000_000...4_000_000_000_000,
                            using: &generator)) / 1000)
                let text = writer.string(from: date)
                #expect(compiled.parse(text) == formatter.date(from: text), "\(pattern): \(text)")
            }
        }
    }

    @Test(
        "values outside the compiled reader's exact form get DateFormatter's answer",
        arguments: [
            ("EEE MMM dd HH:mm:ss Z yyyy", "Mon Apr 21 20:37:03 +0000 2011"),  // wrong weekday
            ("EEE MMM dd HH:mm:ss Z yyyy", "thu apr 21 20:37:03 +0000 2011"),
            ("EEE MMM dd HH:mm:ss Z yyyy", "Thu Apr 31 20:37:03 +0000 2011"),  // no 31 April
            ("EEE MMM dd HH:mm:ss Z yyyy", "Thu Apr 21 24:37:03 +0000 2011"),
            ("EEE MMM dd HH:mm:ss Z yyyy", " Thu Apr 21 20:37:03 +0000 2011"),
            ("EEE MMM dd HH:mm:ss Z yyyy", "Thursday Apr 21 20:37:03 +0000 2011"),
            ("EEE MMM dd HH:mm:ss Z yyyy", "Thu Apr 21 20:37:03 GMT 2011"),
            ("EEE MMM dd HH:mm:ss Z yyyy", "not a date"),
            ("dd/MM/yyyy", "1/2/2020"),
            ("dd/MM/yyyy", "31/02/2020"),
            ("yyyy-MM-dd'T'HH:mm:ss.SSSZ", "2020-01-02T03:04:05.5+0100"),
            ("MMMM d, yyyy h:mm a", "March 3, 2021 12:30 AM"),
            ("MMMM d, yyyy h:mm a", "March 3, 2021 13:30 PM"),
        ])
    func fallback(_ pattern: String, _ text: String) {
        #expect(DatePattern(pattern).parse(text) == Self.formatter(pattern).date(from: text), "\(text)")
    }
}
