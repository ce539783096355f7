import Foundation
import Mappings

/// One piece of inline Lua as the sandbox runs it: a module of its own, whose text is the
/// file's prelude, then the code inside a function of `value` and `userData`:
/// ```lua
/// <@luaPrelude>
/// local lua = function(value, userData, ...) return <code>
/// end
/// return { lua = lua }
/// ```
/// (without `return ` before the code when it is statements). Its chunk is named `@lua#N`, and
/// every message that names a line of it is placed back in the `.mappings` file.
struct InlineChunk: Sendable {
    static let prefix = "@lua#"
    static let opener = "local lua = function(value, userData, ...) "
    static let closer = "\nend\nreturn { lua = lua }"

    let inline: InlineLua
    /// How many lines of the module the prelude takes (0 without one).
    let preludeLines: Int
    /// Whether the code was taken as an expression (`return ` before it).
    let isExpression: Bool

    /// The module's text.
    static func text(of inline: InlineLua, expression: Bool) -> String {
        let head = inline.prelude.map { $0.code + "\n" } ?? ""
        return head + opener + (expression ? "return " : "") + inline.code.code + closer
    }

    static func preludeLines(of inline: InlineLua) -> Int {
        inline.prelude.map { $0.code.unicodeScalars.reduce(1) { $1 == "\n" ? $0 + 1 : $0 } } ?? 0
    }

    /// The `.mappings` place of line `line` of the module; `near` (the token Lua's message names)
    /// moves it to that token on the line, where it is found.
    func place(ofLine line: Int, near token: String? = nil) -> SourceLocation {
        Self.place(ofLine: line, near: token, in: inline, preludeLines: preludeLines)
    }

    static func place(ofLine line: Int, near token: String?, in inline: InlineLua, preludeLines: Int)
        -> SourceLocation
    {
        let (code, codeLine) =
            line <= preludeLines && inline.prelude != nil
            ? (inline.prelude!, line) : (inline.code, line - preludeLines)
        guard let text = code.line(codeLine) else {
            // The module's last line (`end }`): just past the code.
            return code.place(ofOffset: code.code.unicodeScalars.count)
        }
        if let token, token != "<eof>", let range = text.range(of: token) {
            let column = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: range.lowerBound)
            return code.place(line: codeLine, column: column + 1)
        }
        if token == "<eof>" {
            return code.place(line: codeLine, column: text.unicodeScalars.count + 1)
        }
        return code.place(line: codeLine)
    }

    /// A message Lua put a `@lua#N:line:` place on, as `file:line:column: message`, or `nil`
    /// when it names no line of this chunk.
    func placed(_ message: String, chunk name: String) -> String? {
        guard let place = LuaMessage.place(in: message), place.file == name else { return nil }
        return "\(self.place(ofLine: place.line, near: Self.token(in: place.rest))): \(place.rest)"
    }

    /// The innermost `(`, `[` or `{` that `code` leaves open, and its offset (in Unicode
    /// scalars); strings and comments are passed over.
    static func unclosedBracket(in code: String) -> (Character, Int)? {
        let scalars = Array(code.unicodeScalars)
        var open: [(Character, Int)] = []
        var index = 0
        func longBracket(at start: Int) -> Int? {
            // `[[`, `[=[`…: the level, when one starts at `start`.
            guard start < scalars.count, scalars[start] == "[" else { return nil }
            var level = 0
            while start + 1 + level < scalars.count, scalars[start + 1 + level] == "=" { level += 1 }
            return start + 1 + level < scalars.count && scalars[start + 1 + level] == "[" ? level : nil
        }
        func skipLong(from start: Int, level: Int) -> Int {
            let close = "]" + String(repeating: "=", count: level) + "]"
            let rest = String(String.UnicodeScalarView(scalars[start...]))
            guard let range = rest.range(of: close) else { return scalars.count }
            return start + rest.unicodeScalars.distance(from: rest.unicodeScalars.startIndex, to: range.upperBound)
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\"", "'":
                index += 1
                while index < scalars.count, scalars[index] != scalar {
                    if scalars[index] == "\\" { index += 1 }
                    index += 1
                }
            case "-" where index + 1 < scalars.count && scalars[index + 1] == "-":
                if let level = longBracket(at: index + 2) {
                    index = skipLong(from: index + 4 + level, level: level) - 1
                } else {
                    while index < scalars.count, scalars[index] != "\n" { index += 1 }
                }
            case "[" where longBracket(at: index) != nil:
                let level = longBracket(at: index)!
                index = skipLong(from: index + 2 + level, level: level) - 1
            case "(", "[", "{": open.append((Character(scalar), index))
            case ")", "]", "}":
                if !open.isEmpty { open.removeLast() }
            default: break
            }
            index += 1
        }
        return open.last
    }

    /// The token a syntax error names (`near 'x'`, `near <eof>`).
    static func token(in message: String) -> String? {
        if message.hasSuffix("near <eof>") { return "<eof>" }
        guard let near = message.range(of: "near '", options: .backwards),
            let end = message[near.upperBound...].lastIndex(of: "'")
        else { return nil }
        let token = String(message[near.upperBound..<end])
        return token.isEmpty ? nil : token
    }
}

extension LuaScripts {
    /// Compiles inline code into a module of its own (see `InlineChunk`), checks it, and returns
    /// its function; a syntax error, or a prelude that fails as it loads, is a diagnostic at the
    /// place in the `.mappings` file.
    func resolve(_ inline: InlineLua) -> TransformerResolution {
        let engine: any LuaEngine
        switch checkOut() {
        case .success(let found): engine = found
        case .failure(let failure): return .failed(Diagnostic(message: failure.message, location: inline.code.location))
        }
        let preludeLines = InlineChunk.preludeLines(of: inline)
        // Each check compiles only, under a name of its own.
        let name = InlineChunk.prefix + "0"
        func failure(_ failure: LuaFailure, prelude: Bool = false) -> TransformerResolution {
            // After a limit tripped, the interpreter holds whatever was half-built: it goes.
            if !failure.poisonsInterpreter { checkIn(engine) }
            return .failed(
                Self.compileFailure(failure, prelude: prelude, of: inline, name: name, preludeLines: preludeLines))
        }
        if let prelude = inline.prelude,
            let problem = engine.compile(prelude.code, chunkName: "=" + name, limits: limits)
        {
            return failure(problem, prelude: true)
        }
        var isExpression = true
        if let asExpression = engine.compile(
            InlineChunk.text(of: inline, expression: true), chunkName: "=" + name, limits: limits)
        {
            isExpression = false
            if let asStatements = engine.compile(
                InlineChunk.text(of: inline, expression: false), chunkName: "=" + name, limits: limits)
            {
                // Code that says `return` meant statements; other code, an expression.
                let saysReturn = inline.code.code.range(of: #"\breturn\b"#, options: .regularExpression) != nil
                return failure(saysReturn ? asStatements : asExpression)
            }
        }
        checkIn(engine)
        let chunk = InlineChunk(inline: inline, preludeLines: preludeLines, isExpression: isExpression)
        let module = add(chunk)
        return load(chunk, module: module, of: inline)
    }

    /// Loads an inline chunk's module, which runs its prelude (once per interpreter), and
    /// returns its function; a prelude that fails is a diagnostic at its place.
    private func load(_ chunk: InlineChunk, module: String, of inline: InlineLua) -> TransformerResolution {
        let resolving: any LuaEngine
        switch checkOut() {
        case .success(let found): resolving = found
        case .failure(let failure): return .failed(Diagnostic(message: failure.message, location: inline.code.location))
        }
        let resolution = resolving.resolve(module: module, function: "lua", limits: limits)
        emitLog(of: resolving, record: LuaLog.record, capture: LuaLogCapture.current)
        guard case .function(_, _, let line) = resolution else {
            if case .failed(let problem) = resolution, !problem.poisonsInterpreter { checkIn(resolving) }
            let message: String
            var location = inline.code.location
            if case .failed(let problem) = resolution {
                if let place = LuaMessage.place(in: problem.message), place.file == module {
                    location = chunk.place(ofLine: place.line)
                    message = place.rest
                } else {
                    message = problem.message
                }
            } else {
                message = "the prelude replaced the function the code was compiled into"
            }
            return .failed(
                Diagnostic(
                    message: "\"\(inline.keyword)\" fails as its file's \"@luaPrelude\" runs: \(message)",
                    location: location))
        }
        checkIn(resolving)
        let id = identifier(of: LuaFunction(module: module, name: "lua", source: module, line: line))
        return .found(LuaTransformer(scripts: self, function: id, display: inline.code.location.description))
    }

    /// The diagnostic of inline code (or its prelude) that does not compile, at its place in the
    /// `.mappings` file.
    private static func compileFailure(
        _ failure: LuaFailure, prelude: Bool, of inline: InlineLua, name: String, preludeLines: Int
    ) -> Diagnostic {
        let what = prelude ? "\"@luaPrelude\"" : "\"\(inline.keyword)\""
        var message = failure.message
        var location = prelude ? inline.prelude?.location : inline.code.location
        if let place = LuaMessage.place(in: failure.message), place.file == name {
            location = InlineChunk.place(
                ofLine: place.line, near: InlineChunk.token(in: place.rest), in: inline, preludeLines: preludeLines)
            message = place.rest
            // A block the code leaves open is closed by the lines after it: say so plainly.
            let codeLines = inline.code.code.unicodeScalars.reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
            if !prelude, place.line > preludeLines + codeLines {
                if let (bracket, offset) = InlineChunk.unclosedBracket(in: inline.code.code) {
                    let closer = bracket == "(" ? ")" : bracket == "[" ? "]" : "}"
                    message = "this '\(bracket)' is not closed (is a '\(closer)' missing?)"
                    location = inline.code.place(ofOffset: offset)
                } else {
                    message = "the code ends inside a block (is an `end` missing?)"
                }
            }
        }
        return Diagnostic(
            message: "\(what) does not compile: \(message)", location: location,
            help: prelude
                ? "the prelude is Lua statements, such as \"local function cents(n) return n / 100 end\""
                : "write a Lua expression of `value`, such as \"value:lower()\", or statements that end in `return …`"
        )
    }
}
