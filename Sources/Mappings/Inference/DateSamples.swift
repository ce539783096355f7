import Foundation

/// The date formats `mappings init` recognizes in sample values, as `@dateFormat` names them.
enum DateSamples {
    /// The one format every string (found at `key`) is written in, or `nil`.
    ///
    /// Strings that hold a day and no time (`2020-03-02`) are dates only at a key that names a
    /// time or a day (`published_on`, `date`): elsewhere they are versions and codes
    /// (`api_version`), which a `Date` would rewrite as `2020-03-02T00:00:00Z`.
    static func format(of strings: [String], key: String) -> String? {
        guard !strings.isEmpty else { return nil }
        for (format, matches) in formats where strings.allSatisfy(matches) {
            if format == "@iso8601", strings.allSatisfy({ $0.utf8.count == 10 }), !namesTime(key) { return nil }
            return format
        }
        return nil
    }

    /// Unix seconds or milliseconds: whole numbers between the years 2000 and 2100 (in seconds,
    /// or in milliseconds) at a key that names a time (`created_at`, `timestamp`, `dt`, `sunrise`).
    static func unixFormat(_ numbers: [Double], key: String) -> String? {
        guard !numbers.isEmpty, namesTime(key) else { return nil }
        let seconds = 946_684_800.0...4_102_444_800.0
        if numbers.allSatisfy(seconds.contains) { return "@unixSeconds" }
        if numbers.allSatisfy({ seconds.contains($0 / 1000) }) { return "@unixMilliseconds" }
        return nil
    }

    /// Whether a word of `key` names a time or a day: `created_at`, `updated`, `dt`, `published_on`,
    /// `period_start`, `trial_end`, `birthday`, or a last word ending in `time` (`runtime` too).
    static func namesTime(_ key: String) -> Bool {
        let words = InferredNames.words(key).map { $0.lowercased() }
        let times: Set<String> = [
            "at", "on", "time", "timestamp", "ts", "date", "dt", "day", "birthday", "dob", "created",
            "updated", "modified", "deleted", "expires", "expiry", "sunrise", "sunset", "since", "until", "epoch",
            "when", "published", "seen", "start", "started", "starts", "end", "ended", "ends",
        ]
        return words.contains(where: times.contains) || words.last.map { $0.hasSuffix("time") } == true
    }

    private static let weekday = "(Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
    private static let month = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"

    /// Each format and whether a string is written in it, the most particular first.
    private static var formats: [(String, (String) -> Bool)] {
        [
            ("@iso8601", matcher(#"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?"#)),
            (
                "@rfc2822",
                matcher(weekday + #", \d{1,2} "# + month + #" \d{4} \d{2}:\d{2}(:\d{2})? ([+-]\d{4}|GMT|UT|UTC)"#)
            ),
            // Twitter's v1.1 API: "Wed Aug 29 17:12:58 +0000 2012".
            (
                "EEE MMM dd HH:mm:ss Z yyyy",
                matcher(weekday + " " + month + #" \d{2} \d{2}:\d{2}:\d{2} [+-]\d{4} \d{4}"#)
            ),
        ]
    }

    private static func matcher(_ pattern: String) -> (String) -> Bool {
        let expression = try? NSRegularExpression(pattern: "^" + pattern + "$")
        return { string in
            guard let expression else { return false }
            return expression.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
        }
    }
}
