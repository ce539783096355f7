/// A unified diff of two texts, line by line (`---`/`+++` headers, `@@` hunks with two lines
/// of context), as `mappings test --update` shows what it rewrites; the common lines found by
/// a longest common subsequence.
enum LineDiff {
    /// The diff of `before` and `after`, named `path`; empty when they are the same.
    static func unified(_ before: String, _ after: String, path: String, context: Int = 2) -> String {
        let old = before.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let new = after.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let script = edits(old, new)
        guard script.contains(where: { $0.kind != .same }) else { return "" }
        var text = "--- \(path)\n+++ \(path) (updated)\n"
        var index = 0
        while index < script.count {
            guard let first = script[index...].firstIndex(where: { $0.kind != .same }) else { break }
            // A hunk runs on while the next change is within twice the context of the last.
            var last = first
            while let next = script[(last + 1)...].firstIndex(where: { $0.kind != .same }), next - last <= 2 * context {
                last = next
            }
            let start = max(index, first - context)
            let stop = min(script.count, last + 1 + context)
            let oldStart = script[start].old + 1
            let newStart = script[start].new + 1
            let oldCount = script[start..<stop].filter { $0.kind != .inserted }.count
            let newCount = script[start..<stop].filter { $0.kind != .deleted }.count
            text += "@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@\n"
            for step in script[start..<stop] {
                switch step.kind {
                case .same: text += " " + old[step.old] + "\n"
                case .deleted: text += "-" + old[step.old] + "\n"
                case .inserted: text += "+" + new[step.new] + "\n"
                }
            }
            index = stop
        }
        return text
    }

    struct Step {
        enum Kind { case same, deleted, inserted }
        var kind: Kind
        /// The line of the old text (for `inserted`: the one it comes before).
        var old: Int
        /// The line of the new text (for `deleted`: the one it comes before).
        var new: Int
    }

    /// The steps from `old` to `new`: the lines they share, kept, and the others deleted or inserted.
    static func edits(_ old: [String], _ new: [String]) -> [Step] {
        // Lines both texts start and end with are kept without the table.
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let a = Array(old[prefix..<(old.count - suffix)])
        let b = Array(new[prefix..<(new.count - suffix)])
        // lengths[i][j]: the longest common subsequence of a[i...] and b[j...].
        var lengths = [[Int32]](repeating: [Int32](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lengths[i][j] = a[i] == b[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var steps = (0..<prefix).map { Step(kind: .same, old: $0, new: $0) }
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                steps.append(Step(kind: .same, old: prefix + i, new: prefix + j))
                i += 1
                j += 1
            } else if i < a.count, j == b.count || lengths[i + 1][j] >= lengths[i][j + 1] {
                // Deleted lines before inserted ones, as diff shows them.
                steps.append(Step(kind: .deleted, old: prefix + i, new: prefix + j))
                i += 1
            } else {
                steps.append(Step(kind: .inserted, old: prefix + i, new: prefix + j))
                j += 1
            }
        }
        for offset in 0..<suffix {
            steps.append(Step(kind: .same, old: old.count - suffix + offset, new: new.count - suffix + offset))
        }
        return steps
    }
}
