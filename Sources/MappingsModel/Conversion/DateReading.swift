import Foundation
import MappingsJSON

/// A date as a payload wrote it, exactly: whole seconds since 1970 and the significant digits
/// of the fraction of a second, before anything is rounded into a `Date`.
///
/// Every reading of a date (ISO 8601, RFC 2822, a `@dateFormat` pattern, Unix time) makes one,
/// and `date()` is the one place that turns it into a `Date`, under one rule: the years 1 to
/// 9999, and a fraction the output writes back exactly (microseconds; far from 2001 a `Date`
/// holds fewer digits) — anything else is an issue, never a silently moved instant.
struct DateReading {
    /// Whole seconds since 1970-01-01T00:00:00Z, rounded down (so the fraction is ≥ 0).
    var seconds: Int
    /// The fraction's significant digits as a number (`.250` is 25 with `fractionDigits` 2).
    var fraction = 0
    /// How many significant digits the fraction has (trailing zeros dropped).
    var fractionDigits = 0

    /// Why a reading is no `Date`.
    enum Failure: Error {
        /// Outside 0001-01-01T00:00:00Z … 9999-12-31T23:59:59Z.
        case outOfRange
        /// The fraction has more digits than a date keeps (`digits` of them).
        case tooPrecise(digits: Int)
        /// A `Date` this far from 2001 cannot hold the fraction to the microsecond.
        case inexact
    }

    init(seconds: Int) {
        self.seconds = seconds
    }

    /// A reading with a fraction written as ASCII digits (`250` of `…:05.250Z`).
    init(seconds: Int, fractionDigits bytes: some Collection<UInt8>) {
        self.seconds = seconds
        var significant = bytes.count
        var position = bytes.endIndex
        while significant > 0 {
            position = bytes.index(position, offsetBy: -1)
            if bytes[position] != UInt8(ascii: "0") { break }
            significant -= 1
        }
        fractionDigits = significant
        // More than 18 significant digits cannot be kept in any case (see `date()`).
        guard significant <= 18 else { return }
        for byte in bytes.prefix(significant) { fraction = fraction * 10 + Int(byte &- 48) }
    }

    /// A Unix time of `unit`ths of a second (1 or 1000), from its exact decimal value; `nil`
    /// far outside any year a date may have.
    init?(unix value: DecimalDigits, unit: Int) {
        let exponent = value.exponent - (unit == 1000 ? 3 : 0)
        let digits = value.digits
        // 9999-12-31 is 253402300799 seconds: 12 digits. Anything longer is out of range.
        let integerCount = digits.count + exponent
        guard integerCount <= 13 else { return nil }
        var whole = 0
        var fractionBytes: [UInt8] = []
        if exponent >= 0 {
            for byte in digits { whole = whole * 10 + Int(byte &- 48) }
            for _ in 0..<exponent { whole *= 10 }
        } else {
            let split = max(0, integerCount)
            for byte in digits.prefix(split) { whole = whole * 10 + Int(byte &- 48) }
            fractionBytes = Array(repeating: UInt8(ascii: "0"), count: max(0, -integerCount)) + digits.dropFirst(split)
        }
        self.init(seconds: whole, fractionDigits: fractionBytes)
        guard value.negative else { return }
        // −1.25 s is 2 s before 1970 plus .75: the fraction is kept non-negative.
        seconds = -seconds
        if fractionDigits > 0 {
            guard fractionDigits <= 18 else { return }
            var power = 1
            for _ in 0..<fractionDigits { power *= 10 }
            seconds -= 1
            var complement = power - fraction
            var count = fractionDigits
            while complement % 10 == 0 {
                complement /= 10
                count -= 1
            }
            fraction = complement
            fractionDigits = count
        }
    }

    /// The `Date`, when it is in the years 1 to 9999 and holds the fraction exactly as the
    /// output writes it (`JSONWriter.instantParts`).
    func date() -> Result<Date, Failure> {
        guard seconds >= DateReading.earliest, seconds <= DateReading.latest else { return .failure(.outOfRange) }
        guard fractionDigits <= 6 else { return .failure(.tooPrecise(digits: fractionDigits)) }
        var micros = fraction
        for _ in fractionDigits..<6 { micros *= 10 }
        let date = Date(
            timeIntervalSinceReferenceDate: Double(seconds - DateReading.referenceOffset) + Double(micros) / 1e6)
        let written = JSONWriter.instantParts(date)
        guard written.seconds == seconds, written.micros == micros else { return .failure(.inexact) }
        return .success(date)
    }

    /// Seconds from 1970 to 2001, where `Date` counts from.
    static let referenceOffset = 978_307_200
    /// The latest instant a date may have: 9999-12-31T23:59:59Z (ISO 8601 writes four-digit years).
    static let latest = 253_402_300_799
    /// The earliest: 0001-01-01T00:00:00Z.
    static let earliest = -62_135_596_800
}

extension DateReading.Failure {
    /// The end of an issue's message after `found …`: `, which is outside the years 1 to 9999`.
    var clause: String {
        switch self {
        case .outOfRange:
            ", which is outside the years 1 to 9999"
        case .tooPrecise(let digits):
            ", whose fraction of a second has \(digits) significant digits: a date keeps 6 (microseconds), so it would be cut; declare it String to keep it"
        case .inexact:
            ", whose fraction of a second a date cannot hold to the microsecond this far from the year 2001; declare it String to keep it"
        }
    }
}
