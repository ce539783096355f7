import MappingsJSON

/// Finds the candidate closest to a misspelled name, for "did you mean" help.
package enum Suggestion {
    /// The closest candidate to `name`, if one is close enough to be a likely typo.
    ///
    /// Close enough means the same name up to letter case or canonical equivalence, or an edit
    /// distance of at most a third of the name's length (at least 1) that keeps something of
    /// both: `"x"` is not close to `"1"` (one edit replaces all of it), `"actve"` is close to
    /// `"active"`.
    package static func closest(to name: String, among candidates: some Sequence<String>) -> String? {
        let lowered = Array(name.lowercased().unicodeScalars)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where !candidate.hasSameCodePoints(as: name) {
            let other = Array(candidate.lowercased().unicodeScalars)
            if other == lowered || candidate == name { return candidate }
            let distance = editDistance(lowered, other)
            guard distance < max(lowered.count, other.count) else { continue }
            if distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        guard let best, best.distance <= max(1, name.count / 3) else { return nil }
        return best.candidate
    }

    /// `did you mean "x"?`, or `nil` when nothing is close.
    /// A name with a space (`@whn x`) is matched by its first word.
    package static func help(for name: String, among candidates: some Sequence<String>) -> String? {
        let word = name.split(separator: " ", maxSplits: 1).first.map(String.init) ?? name
        return closest(to: word, among: candidates).map { "did you mean \(quoted($0, against: word))?" }
    }

    /// A suggested `candidate` in quotes; when it only differs from `name` in how its
    /// characters are composed (`é` as U+00E9 or as `e` + U+0301), with both spellings' code
    /// points, since the two print alike.
    package static func quoted(_ candidate: String, against name: String) -> String {
        guard candidate == name, !candidate.hasSameCodePoints(as: name) else { return "\"\(candidate)\"" }
        return "\"\(candidate)\" (\(codePoints(candidate)), not \(codePoints(name)))"
    }

    /// `U+0065 U+0301`.
    private static func codePoints(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }.joined(separator: " ")
    }

    /// Edits (insertions, deletions, substitutions, swaps of neighbours) that turn `a` into `b`.
    private static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
