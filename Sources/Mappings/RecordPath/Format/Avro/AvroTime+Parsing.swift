extension AvroTime {
    /// The days since 1970-01-01 of `2024-01-31`, or of a timestamp at midnight UTC
    /// (`2024-01-31T00:00:00Z`, as a `Date` is written); `nil` for other text.
    package static func days(in text: String) -> Int64? {
        var scan = Array(text.utf8)[...]
        guard let days = date(&scan) else { return nil }
        if scan.isEmpty { return days }
        guard let units = timestamp(in: text, perSecond: 1, local: false), units % 86_400 == 0 else { return nil }
        return units / 86_400
    }

    /// A time of day (`12:00:00`, `12:00:00.123456`) in units of `perSecond`; a fraction with
    /// more nonzero digits than the unit keeps is `nil`.
    package static func timeOfDay(in text: String, perSecond: Int64) -> Int64? {
        var scan = Array(text.utf8)[...]
        guard let units = time(&scan, perSecond: perSecond), scan.isEmpty else { return nil }
        return units
    }

    /// An ISO 8601 date and time (`2024-01-31T12:00:00.123Z`, an offset such as `+02:00`, or no
    /// zone, which is UTC) in units of `perSecond` since 1970-01-01T00:00:00Z; a local timestamp
    /// takes no offset (`Z` or none).
    package static func timestamp(in text: String, perSecond: Int64, local: Bool) -> Int64? {
        var scan = Array(text.utf8)[...]
        guard let days = date(&scan), let separator = scan.popFirst(),
            separator == UInt8(ascii: "T") || separator == UInt8(ascii: " "),
            let ofDay = time(&scan, perSecond: perSecond)
        else { return nil }
        var offset: Int64 = 0
        if let sign = scan.popFirst() {
            if sign == UInt8(ascii: "Z") || sign == UInt8(ascii: "z") {
                guard scan.isEmpty else { return nil }
            } else {
                guard !local, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), let hours = number(&scan, 2)
                else {
                    return nil
                }
                if scan.first == UInt8(ascii: ":") { scan.removeFirst() }
                guard let minutes = number(&scan, 2), scan.isEmpty, hours < 24, minutes < 60 else { return nil }
                offset = (hours * 60 + minutes) * 60 * (sign == UInt8(ascii: "+") ? 1 : -1)
            }
        }
        let (dayUnits, o1) = days.multipliedReportingOverflow(by: 86_400 * perSecond)
        let (total, o2) = dayUnits.addingReportingOverflow(ofDay - offset * perSecond)
        return o1 || o2 ? nil : total
    }

    /// `YYYY-MM-DD` (a sign and more digits for years past 9999 or before 1) as days since 1970.
    private static func date(_ scan: inout ArraySlice<UInt8>) -> Int64? {
        var sign: Int64 = 1
        if scan.first == UInt8(ascii: "+") || scan.first == UInt8(ascii: "-") {
            sign = scan.removeFirst() == UInt8(ascii: "-") ? -1 : 1
        }
        var yearDigits = 0
        while yearDigits < scan.count, (48...57).contains(scan[scan.startIndex + yearDigits]) { yearDigits += 1 }
        guard yearDigits >= 4, yearDigits <= 9, let year = number(&scan, yearDigits),
            scan.popFirst() == UInt8(ascii: "-"),
            let month = number(&scan, 2), scan.popFirst() == UInt8(ascii: "-"), let day = number(&scan, 2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: sign * year)
        else { return nil }
        return daysSinceEpoch(year: sign * year, month: month, day: day)
    }

    /// `HH:MM:SS` and a fraction of 1 to 9 digits, in units of `perSecond`.
    private static func time(_ scan: inout ArraySlice<UInt8>, perSecond: Int64) -> Int64? {
        guard let hours = number(&scan, 2), scan.popFirst() == UInt8(ascii: ":"), let minutes = number(&scan, 2),
            scan.popFirst() == UInt8(ascii: ":"), let seconds = number(&scan, 2), hours < 24, minutes < 60, seconds < 60
        else { return nil }
        var units = ((hours * 60 + minutes) * 60 + seconds) * perSecond
        guard scan.first == UInt8(ascii: ".") else { return units }
        scan.removeFirst()
        var scale = perSecond
        var digits = 0
        while let digit = scan.first, (48...57).contains(digit) {
            scan.removeFirst()
            digits += 1
            guard digits <= 9 else { return nil }
            scale /= 10
            // A digit past the unit's is kept only when it is 0: nothing is rounded away.
            if scale == 0 {
                guard digit == UInt8(ascii: "0") else { return nil }
                continue
            }
            units += Int64(digit - 48) * scale
        }
        return digits == 0 ? nil : units
    }

    private static func number(_ scan: inout ArraySlice<UInt8>, _ count: Int) -> Int64? {
        guard scan.count >= count else { return nil }
        var value: Int64 = 0
        for _ in 0..<count {
            let digit = scan.removeFirst()
            guard (48...57).contains(digit) else { return nil }
            value = value * 10 + Int64(digit - 48)
        }
        return value
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][Int(month - 1)]
    }

    /// The days from 1970-01-01 to a day of the proleptic Gregorian calendar (the inverse of
    /// `JSONWriter.civil(fromDays:)`).
    package static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
