import Foundation
import MappingsJSON

/// Converting to Date: Unix time, ISO 8601, RFC 2822, or the `@dateFormat` formats.
extension Converter {
    /// Converts to Date: see `date(from:formats:)`.
    @inline(__always)
    static func convertDate(_ value: JSONValue, formats: DateFormats?) -> ScalarConversion {
        switch date(from: value, formats: formats) {
        case .success(let date): return .converted(.date(date))
        case .failure(let failure): return .failed(failure.message)
        }
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
            if let formats {
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
