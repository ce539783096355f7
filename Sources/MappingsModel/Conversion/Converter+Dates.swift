import Foundation
import MappingsJSON

/// Converting to Date: Unix time, ISO 8601, RFC 2822, or the `@dateFormat` formats.
extension Converter {
    /// Converts to Date: see `date(from:formats:)`.
    @inline(__always)
    static func convertDate(_ value: JSONValue, formats: DateFormats?) -> ScalarConversion {
        switch date(from: value, formats: formats) {
        case .success(let date):
            if let range = formats?.range {
                guard date >= range.lower, date <= range.upper else {
                    return .failed(
                        "expected a date from \(range.text) (@dateRange), found \(describe(value)), which is \(JSONWriter.iso8601(date))"
                    )
                }
                return .converted(.date(date))
            }
            if let warning = implausibleUnixTime(value, date: date, formats: formats) {
                return .warned(.date(date), warning)
            }
            return .converted(.date(date))
        case .failure(let failure): return .failed(failure.message)
        }
    }

    /// 1973-01-01 and 2200-01-01 in Unix seconds: Unix milliseconds that read as a date before
    /// the first were most likely seconds, Unix seconds that read as one after the second
    /// milliseconds.
    static let plausibleUnixSeconds: ClosedRange<Double> = 94_694_400...7_258_118_400

    /// The warning for a Unix time read in the unit that most likely is not its own — seconds
    /// read as milliseconds land in the first days of 1970 (`1453671950` as 1970-01-17),
    /// milliseconds read as seconds centuries ahead — or `nil` for a date that is plausible,
    /// or not a Unix time. An entry's `@dateRange` says which dates are, instead.
    static func implausibleUnixTime(_ value: JSONValue, date: Date, formats: DateFormats?) -> String? {
        let milliseconds: Bool
        switch value {
        case .integer, .double, .number:
            milliseconds = formats?.numbersAreMilliseconds ?? false
        case .string(let string):
            guard DecimalDigits(literal: string.trimmingSpaces) != nil else { return nil }
            switch formats?.formats.first {
            case nil: milliseconds = false
            case .unixMilliseconds?: milliseconds = true
            case .unixSeconds?: milliseconds = false
            default: return nil
            }
        default:
            return nil
        }
        let seconds = date.timeIntervalSince1970
        let read =
            "\(describe(value)) as Unix \(milliseconds ? "milliseconds" : "seconds") is \(JSONWriter.iso8601(date))"
        let range = "; if that is right, give the dates it may be: \"@dateRange\": [\"1970-01-01\", \"2200-01-01\"]"
        if milliseconds, seconds < plausibleUnixSeconds.lowerBound {
            return read + ", before 1973: if it counts seconds, set \"@dateFormat\": \"@unixSeconds\"" + range
        }
        if !milliseconds, seconds > plausibleUnixSeconds.upperBound {
            return read + ", after 2200: if it counts milliseconds, set \"@dateFormat\": \"@unixMilliseconds\"" + range
        }
        return nil
    }

    /// Why a value is no date, as an issue says it.
    struct DateFailure: Error {
        var message: String
    }

    /// Reads a date: numbers as Unix time (seconds, or milliseconds when the formats say so),
    /// strings by the formats, or without them as ISO 8601, RFC 2822 or Unix seconds. Every
    /// reading is exact until `DateReading.date()`, which refuses a date outside the years 1
    /// to 9999 and a fraction of a second a date would not give back: never a silent instant.
    static func date(from value: JSONValue, formats: DateFormats?) -> Result<Date, DateFailure> {
        let reading: Result<DateReading, DateReading.Failure>
        let milliseconds = formats?.numbersAreMilliseconds ?? false
        // A number, or a string of one, read as Unix time: what the milliseconds hint is for.
        var unix: DecimalDigits?
        switch value {
        case .integer, .double, .number:
            guard let digits = value.decimalDigits else {
                return .failure(DateFailure(message: "expected Date, found \(describe(value))"))
            }
            unix = digits
            reading =
                DateReading(unix: digits, unit: milliseconds ? 1000 : 1).map { .success($0) } ?? .failure(.outOfRange)
        case .string(let string):
            if let formats, !formats.formats.isEmpty {
                switch formats.read(string) {
                case .success(let date):
                    return .success(date)
                case .failure(.reading(let failure)):
                    return .failure(DateFailure(message: "expected Date, found \(describe(value))" + failure.clause))
                case .failure(.mismatch(let reason)):
                    return .failure(
                        DateFailure(
                            message: "expected a date in the format \(formats.text), found \(describe(value))"
                                + (reason.map { ": " + $0 } ?? "")))
                }
            }
            if let read = DateParser.iso8601(string) ?? DateParser.rfc2822(string) {
                reading = .success(read)
            } else if let read = DateParser.unixTime(string, unit: 1) {
                reading = read
                unix = DecimalDigits(literal: string.trimmingSpaces)
            } else {
                return .failure(
                    DateFailure(
                        message:
                            "expected Date, found \(describe(value)); dates are ISO 8601, RFC 2822 or Unix seconds, or set \"@dateFormat\""
                    ))
            }
        default:
            return .failure(DateFailure(message: "expected Date, found \(describe(value))"))
        }
        switch reading.flatMap({ $0.date() }) {
        case .success(let date):
            return .success(date)
        case .failure(.outOfRange):
            guard let unix else {
                return .failure(
                    DateFailure(
                        message: "expected Date, found \(describe(value))" + DateReading.Failure.outOfRange.clause))
            }
            let unit = milliseconds ? "milliseconds" : "seconds"
            var message =
                "expected Date, found \(describe(value)), which as Unix \(unit) is outside the years 1 to 9999"
            if !milliseconds, let asMilliseconds = DateReading(unix: unix, unit: 1000),
                case .success = asMilliseconds.date()
            {
                message += "; if it counts milliseconds, set \"@dateFormat\": \"@unixMilliseconds\""
            }
            return .failure(DateFailure(message: message))
        case .failure(let failure):
            return .failure(DateFailure(message: "expected Date, found \(describe(value))" + failure.clause))
        }
    }
}
