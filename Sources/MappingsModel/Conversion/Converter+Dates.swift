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
    /// strings by the formats, or without them as ISO 8601, RFC 2822 or Unix seconds. A reading
    /// outside the years 1 to 9999 is a failure, never a silent wrong year.
    static func date(from value: JSONValue, formats: DateFormats?) -> Result<Date, DateFailure> {
        let count: Double
        switch value {
        case .integer(let integer): count = Double(integer)
        case .double(let double): count = double
        case .number(let number): count = number.double
        case .string(let string):
            if let formats {
                guard let date = formats.parse(string) else {
                    return .failure(
                        DateFailure(message: "expected a date in the format \(formats.text), found \(describe(value))"))
                }
                return .success(date)
            }
            if let date = DateParser.iso8601(string) ?? DateParser.rfc2822(string) { return .success(date) }
            let trimmed = string.trimmingSpaces
            guard isNumberLiteral(trimmed), let seconds = Double(trimmed) else {
                return .failure(
                    DateFailure(
                        message:
                            "expected Date, found \(describe(value)); dates are ISO 8601, RFC 2822 or Unix seconds, or set \"@dateFormat\""
                    ))
            }
            count = seconds
        default:
            return .failure(DateFailure(message: "expected Date, found \(describe(value))"))
        }
        let milliseconds = formats?.numbersAreMilliseconds ?? false
        let seconds = milliseconds ? count / 1000 : count
        guard DateFormats.isInRange(seconds) else {
            let unit = milliseconds ? "milliseconds" : "seconds"
            var message =
                "expected Date, found \(describe(value)), which as Unix \(unit) is outside the years 1 to 9999"
            if !milliseconds, DateFormats.isInRange(count / 1000) {
                message += "; if it counts milliseconds, set \"@dateFormat\": \"@unixMilliseconds\""
            }
            return .failure(DateFailure(message: message))
        }
        return .success(Date(timeIntervalSince1970: seconds))
    }
}
