import Foundation

/// The functions a Lua script defines, read from its text: where each is and the comment above it.
///
/// Reads `function T.name(`, `function T:name(`, `local function name(` and `name = function(`
/// lines; enough for an editor's hover, definition and completion, with no Lua run.
package struct LuaOutline: Sendable {
    package struct Function: Sendable {
        package let name: String
        /// 1-based line and scalar column of the name.
        package let line: Int
        package let column: Int
        /// The `--` comment lines right above the definition, without their dashes.
        package let documentation: String
        /// The parameters as written.
        package let parameters: String
    }

    package let functions: [Function]

    package init(text: String) {
        var functions: [Function] = []
        var comment: [String] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("--") {
                comment.append(String(line.drop(while: { $0 == "-" }).trimmingCharacters(in: .whitespaces)))
                continue
            }
            if let found = Self.function(in: raw) {
                functions.append(
                    Function(
                        name: found.name, line: index + 1, column: found.column,
                        documentation: comment.joined(separator: "\n"), parameters: found.parameters))
            }
            comment = []
        }
        self.functions = functions
    }

    /// The function a line defines: its name (after the last `.` or `:`), the name's column, its parameters.
    private static func function(in line: Substring) -> (name: String, column: Int, parameters: String)? {
        let scalars = Array(line.unicodeScalars)
        func word(at start: Int) -> (String, Int) {
            var end = start
            while end < scalars.count,
                scalars[end].properties.isAlphabetic || scalars[end] == "_"
                    || ("0"..."9").contains(scalars[end]) || scalars[end] == "." || scalars[end] == ":"
            {
                end += 1
            }
            var string = ""
            string.unicodeScalars.append(contentsOf: scalars[start..<end])
            return (string, end)
        }
        func parameters(from index: Int) -> String {
            guard let open = scalars[index...].firstIndex(of: "("),
                let close = scalars[open...].firstIndex(of: ")")
            else { return "" }
            var string = ""
            string.unicodeScalars.append(contentsOf: scalars[(open + 1)..<close])
            return string
        }
        var start = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) ?? scalars.count
        let text = String(String.UnicodeScalarView(scalars[start...]))
        let assigned: Bool
        if text.hasPrefix("local function ") {
            start += "local function ".count
            assigned = false
        } else if text.hasPrefix("function ") {
            start += "function ".count
            assigned = false
        } else {
            assigned = true
        }
        let (name, end) = word(at: start)
        guard !name.isEmpty else { return nil }
        if assigned {
            // `name = function(` or `T.name = function(`.
            let rest = String(String.UnicodeScalarView(scalars[end...])).trimmingCharacters(in: .whitespaces)
            guard rest.hasPrefix("="), rest.dropFirst().trimmingCharacters(in: .whitespaces).hasPrefix("function")
            else { return nil }
        }
        // The name after the last `.` or `:` (`T.upper`, `T:method`), and its column.
        let short = name.split(whereSeparator: { $0 == "." || $0 == ":" }).last.map(String.init) ?? name
        return (short, start + name.unicodeScalars.count - short.unicodeScalars.count + 1, parameters(from: end))
    }
}
