import Foundation
import MappingsTestSupport

/// The output a documentation block shows, with its masks: `…` inside a line matches any run of
/// characters on that line, and a line that is only `…` matches any number of lines (none too).
struct ExpectedOutput {
    /// The mask.
    static let mask = "…"

    var lines: [String]

    /// Whether `actual` (lines) is what the block shows.
    func matches(_ actual: [String]) -> Bool {
        var memo: [Int: Bool] = [:]
        func match(_ e: Int, _ a: Int) -> Bool {
            let key = e * (actual.count + 1) + a
            if let known = memo[key] { return known }
            let result: Bool
            if e == lines.count {
                result = a == actual.count
            } else if lines[e] == Self.mask {
                result = match(e + 1, a) || (a < actual.count && match(e, a + 1))
            } else {
                result = a < actual.count && Self.line(actual[a], matches: lines[e]) && match(e + 1, a + 1)
            }
            memo[key] = result
            return result
        }
        return match(0, 0)
    }

    /// Whether one actual line matches one expected line, `…` matching any run of characters.
    static func line(_ actual: String, matches expected: String) -> Bool {
        let pieces = expected.components(separatedBy: mask)
        guard pieces.count > 1 else { return actual == expected }
        var rest = Substring(actual)
        guard rest.hasPrefix(pieces[0]) else { return false }
        rest = rest.dropFirst(pieces[0].count)
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let found = rest.range(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.hasSuffix(pieces[pieces.count - 1])
    }

    /// A line diff of the expected lines against `actual`: `-` for a line the block shows that
    /// did not come, `+` for a line that came instead, two spaces for a line that matched.
    func diff(against actual: [String]) -> String {
        // Longest common subsequence, lines comparing through their masks; a `…` line stays
        // unmatched, so the diff shows where the mask stood.
        let n = lines.count, m = actual.count
        var lengths = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lengths[i][j] =
                    Self.line(actual[j], matches: lines[i])
                    ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var out: [String] = []
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, Self.line(actual[j], matches: lines[i]) {
                out.append("  " + actual[j])
                i += 1
                j += 1
            } else if i < n, j == m || lengths[i + 1][j] >= lengths[i][j + 1] {
                out.append("- " + lines[i])
                i += 1
            } else {
                out.append("+ " + actual[j])
                j += 1
            }
        }
        return out.joined(separator: "\n")
    }
}
