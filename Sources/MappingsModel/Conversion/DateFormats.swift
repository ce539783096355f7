package import Foundation
package import MappingsJSON

/// What `@dateFormat` says: one pattern, a named format, or a list of them tried in order.
///
/// The named formats are `@iso8601` (ISO 8601 / RFC 3339), `@rfc2822`, `@unixSeconds` and
/// `@unixMilliseconds`. A string is read by the first format that takes it; a number by the
/// first Unix format in the list (seconds when there is none). Reverse mapping writes with
/// the first format. Compiled once, when the catalog loads.
package struct DateFormats: Sendable, Hashable {
    package enum Format: Sendable, Hashable {
        case pattern(DatePattern)
        case iso8601, rfc2822, unixSeconds, unixMilliseconds
    }

    /// The named formats, as `@dateFormat` spells them.
    package static let names: [(name: String, format: Format)] = [
        ("@iso8601", .iso8601), ("@rfc2822", .rfc2822), ("@unixSeconds", .unixSeconds),
        ("@unixMilliseconds", .unixMilliseconds),
    ]

    /// The formats, in the order they are tried; none: the default reading (ISO 8601, RFC 2822,
    /// Unix seconds), when only `@dateRange` is given.
    private(set) var formats: [Format]
    /// The formats as written, for messages (`"EEE MMM dd"`, `"@iso8601" or "yyyy-MM-dd"`).
    private(set) var text: String
    /// `@dateRange`: the dates a value may be, both ends included; a date outside is an error,
    /// and inside it a Unix time is not second-guessed (`Converter.implausibleUnixTime`).
    package private(set) var range: DateRange?

    /// What `@dateRange` says: the first and last dates a value may be, as written.
    package struct DateRange: Sendable, Hashable {
        package var lower: Date
        package var upper: Date
        /// `"1990-01-01" to "2100-01-01"`, for messages.
        package var text: String

        package init(lower: Date, upper: Date, text: String) {
            self.lower = lower
            self.upper = upper
            self.text = text
        }

        /// The range from `lower` to `upper`, ISO 8601 dates or instants (`"1990-01-01"`,
        /// `"2024-06-01T12:00:00Z"`); why not, when one is not such a date or they are out of order.
        package static func reading(_ lower: String, _ upper: String) -> Result<DateRange, Refusal> {
            func date(_ text: String) -> Date? {
                guard let reading = DateParser.iso8601(text), case .success(let date) = reading.date() else {
                    return nil
                }
                return date
            }
            guard let from = date(lower) else {
                return .failure(Refusal(reason: "\"\(lower)\" is not an ISO 8601 date"))
            }
            guard let to = date(upper) else { return .failure(Refusal(reason: "\"\(upper)\" is not an ISO 8601 date")) }
            guard from < to else { return .failure(Refusal(reason: "\"\(lower)\" is not before \"\(upper)\"")) }
            return .success(DateRange(lower: from, upper: to, text: "\(lower) to \(upper)"))
        }

        /// Why `reading` refused a range.
        package struct Refusal: Error {
            package var reason: String
        }
    }

    /// Compiles the formats as written; `nil` when one starts with `@` but names no format.
    package init?(_ written: [String]) {
        var formats: [Format] = []
        for text in written {
            if text.hasPrefix("@") {
                guard let named = Self.names.first(where: { $0.name == text }) else { return nil }
                formats.append(named.format)
            } else {
                formats.append(.pattern(DatePattern(text)))
            }
        }
        self.formats = formats
        self.text = written.map { "\"\($0)\"" }.joined(separator: " or ")
    }

    /// The formats as written (none: the default reading) within `range`; `nil` when a format
    /// starts with `@` but names no format.
    package init?(_ written: [String]?, range: DateRange?) {
        if let written {
            guard let formats = DateFormats(written) else { return nil }
            self = formats
        } else {
            self.init(pattern: "")
            formats = []
            text = "\"@iso8601\" or \"@rfc2822\" or \"@unixSeconds\""
        }
        self.range = range
    }

    /// One pattern, even one that starts with `@`.
    init(pattern: String) {
        formats = [.pattern(DatePattern(pattern))]
        text = "\"\(pattern)\""
    }

    /// Whether the formats read numbers (`@unixSeconds`, `@unixMilliseconds`): then a number is
    /// a date's own JSON kind under strict conversions.
    var readsNumbers: Bool {
        formats.contains { $0 == .unixSeconds || $0 == .unixMilliseconds }
    }

    /// Whether a number counts milliseconds under these formats (their first Unix format).
    var numbersAreMilliseconds: Bool {
        formats.first(where: { $0 == .unixSeconds || $0 == .unixMilliseconds }) == .unixMilliseconds
    }

    /// Reads a string with the first format that takes it. When none does, the failure of
    /// the first that read it (a date out of range, a fraction too fine), else the reason the
    /// first pattern gives, when the list has one pattern.
    func read(_ string: String) -> Result<Date, DateFormatFailure> {
        var failure: DateFormatFailure?
        for format in formats {
            let reading: Result<DateReading, DateFormatFailure>?
            switch format {
            case .pattern(let pattern):
                reading = pattern.read(string).mapError { .mismatch(reason: formats.count == 1 ? $0.reason : nil) }
            case .iso8601: reading = DateParser.iso8601(string).map { .success($0) }
            case .rfc2822: reading = DateParser.rfc2822(string).map { .success($0) }
            case .unixSeconds: reading = DateParser.unixTime(string, unit: 1)?.mapError { .reading($0) }
            case .unixMilliseconds: reading = DateParser.unixTime(string, unit: 1000)?.mapError { .reading($0) }
            }
            switch reading?.flatMap({ $0.date().mapError { .reading($0) } }) {
            case .success(let date):
                return .success(date)
            case .failure(let found):
                // A value read but not holdable says more than one that did not read.
                switch (failure, found) {
                case (nil, _), (.mismatch?, .reading): failure = found
                default: break
                }
            case nil:
                continue
            }
        }
        return .failure(failure ?? .mismatch(reason: nil))
    }

    /// The date `read(_:)` reads from a string's UTF-8 bytes, for a fast path that holds no
    /// `String`: the same date whenever it gives one. `nil` when no format reads the value and
    /// when a format is one read from text only (ICU's patterns, the named formats) before one
    /// reads it: `read(_:)` then says which date, or why none.
    package func date(fromBytes bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        for index in formats.indices {
            guard case .pattern(let pattern) = formats[index], let reading = pattern.read(bytes: bytes) else {
                return nil
            }
            // A format that reads no date (a mismatch, or a reading no date holds) passes to the next.
            if case .success(let found) = reading, case .success(let date) = found.date() { return date }
        }
        return nil
    }

    /// Whether `date(fromBytes:)` can read with the first format (a compiled pattern).
    package var readsBytes: Bool {
        guard range == nil, case .pattern(let pattern)? = formats.first else { return false }
        return pattern.isCompiled
    }

    /// The same formats in storage of their own (compiled again): a copy that threads can use
    /// without touching the reference counts of the original's.
    package func independentCopy() -> DateFormats {
        var copy = self
        copy.formats = formats.map { format in
            guard case .pattern(let pattern) = format else { return format }
            return .pattern(DatePattern(String(decoding: Array(pattern.text.utf8), as: UTF8.self)))
        }
        copy.text = String(decoding: Array(text.utf8), as: UTF8.self)
        return copy
    }

    /// Why no format of a `@dateFormat` reads a string.
    enum DateFormatFailure: Error {
        /// It was read, but is no date a value may hold (out of range, too fine a fraction).
        case reading(DateReading.Failure)
        /// It does not read in the formats; `reason` says why, when one pattern says.
        case mismatch(reason: String?)
    }

    /// The value reverse mapping writes for `date`: with the first format.
    package func write(_ date: Date) -> JSONValue {
        switch formats.first {
        case .pattern(let pattern): .string(DateParser.format(date, format: pattern.text))
        case .rfc2822: .string(DateParser.format(date, format: "EEE, dd MMM yyyy HH:mm:ss Z"))
        case .unixSeconds: Self.number(date.timeIntervalSince1970)
        case .unixMilliseconds: .integer(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        case .iso8601, nil: .string(JSONWriter.iso8601(date))
        }
    }

    /// Seconds as a JSON number: an integer when whole.
    private static func number(_ seconds: Double) -> JSONValue {
        Int64(exactly: seconds).map(JSONValue.integer) ?? .double(seconds)
    }
}
