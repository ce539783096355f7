import Foundation
import MappingsTestSupport
import Testing

@Suite("Functions stay short: at most 80 lines, in Swift and in C")
struct FunctionLengthTests {
    static let root = Fixtures.root
    static let limit = 80

    /// Longer on purpose (docs/architecture.md, "Short functions"): parsers whose states share a
    /// handful of locals, by file and name.
    static let exceptions: Set<String> = [
        "Sources/MappingsModel/Conversion/DatePattern.swift: read",
        "Sources/MappingsJSON/JSON/JSONTape+Index.swift: skipContainer",
    ]

    /// Swift functions that were over the limit when the check came (issue 64), to be split: the
    /// list only shrinks. One that is short now, or gone, must leave it.
    static let toSplit: Set<String> = [
        "Sources/MappingsCompiler/Compilation/ContextCompiler.swift: compileBody",
        "Sources/MappingsCompiler/Loading/FileLoader.swift: loadFile",
        "Sources/MappingsCompiler/Tables/TableDeclaration.swift: read",
        "Sources/MappingsEngine/Mapping/MappingRun.swift: apply",
        "Sources/MappingsModel/Conversion/ExactDecimal.swift: read",
        "Sources/MappingsSQL/SQLRowEncoder.swift: cell",
        "Sources/MappingsServer/Serving/MappingServer.swift: map",
    ]

    /// The functions of the package's sources in `language`, by file (from the root) and name.
    static func functions(_ language: SourceFunctions.Language) throws -> [(
        name: String, function: SourceFunctions.Function
    )] {
        let extensions: Set<String> = language == .c ? ["c", "h"] : ["swift"]
        let sources = root.appendingPathComponent("Sources")
        let files =
            FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { extensions.contains($0.pathExtension) } ?? []
        var found: [(String, SourceFunctions.Function)] = []
        for file in files.sorted(by: { $0.path < $1.path }) {
            let path = "Sources" + file.path.dropFirst(sources.path.count)
            let read = SourceFunctions(try String(contentsOf: file, encoding: .utf8), language: language)
            #expect(read.balanced, "\(path): its braces do not balance as read (a literal or comment misread?)")
            found += read.functions.map { ("\(path): \($0.name)", $0) }
        }
        #expect(!found.isEmpty)
        return found
    }

    @Test("no C function in Sources/ (the sandbox, the worker, the index, the clients) is longer than 80 lines")
    func cFunctionsAreShort() throws {
        for (name, function) in try Self.functions(.c) where function.lines > Self.limit {
            Issue.record(
                "\(name) (line \(function.line)) is \(function.lines) lines, more than \(Self.limit): split it into helpers named for what they do (docs/architecture.md, \"Short functions\")"
            )
        }
    }

    @Test("no Swift function in Sources/ is longer than 80 lines, but the two parsers docs/architecture.md names")
    func swiftFunctionsAreShort() throws {
        var long: Set<String> = []
        for (name, function) in try Self.functions(.swift) where function.lines > Self.limit {
            long.insert(name)
            if Self.exceptions.contains(name) || Self.toSplit.contains(name) { continue }
            Issue.record(
                "\(name) (line \(function.line)) is \(function.lines) lines, more than \(Self.limit): split it into functions named for what they do (docs/architecture.md, \"Short functions\")"
            )
        }
        for name in Self.toSplit.subtracting(long).sorted() {
            Issue.record(
                "\(name) is no longer over \(Self.limit) lines (or is gone): take it off FunctionLengthTests.toSplit")
        }
    }

    /// A C text and the functions the reader must find in it: braces in comments, string and
    /// character literals and a directive, a signature over three lines, an attribute.
    static let cText = #"""
        /// A doc comment {
        static const char *names[] = {"a", "}"};

        static int
        first(int a,
              int b) {
            if (a == '{') return b; // }
            /* { */
            return "{"[0] + '\'';
        }
        #define BRACE {
        int second(void) { return 0; }
        static inline __attribute__((always_inline)) int third(void) {
            return 1;
        }
        """#

    /// A Swift text and the functions the reader must find in it: a signature over three lines
    /// with its attribute above it, braces in strings, an interpolation holding a closure and a
    /// string, a raw string, nested comments, a multi-line string, and a protocol's requirement.
    static let swiftText = #"""
        struct S {
            /// Doc {
            @inlinable
            public static func first(
                _ a: Int = 1, b: String = "}"
            ) -> Int where Int: Equatable {
                let text = "\(a.description.map { "\($0)}" })"
                let raw = #"{ \(not) "#
                /* { /* nested */ } */
                return """
                    }
                    """.count + text.count + raw.count
            }
            init?(x: Int) { nil }
            subscript(index: Int) -> Int { index }
        }
        protocol P {
            func required() -> Int
            var value: Int { get }
        }
        """#

    @Test(
        "a function counts from its signature to its closing brace; no brace of a comment, literal or directive counts",
        arguments: [
            (SourceFunctions.Language.c, cText, [("first", 4, 7), ("second", 12, 1), ("third", 13, 3)]),
            (.swift, swiftText, [("first", 4, 10), ("init", 14, 1), ("subscript", 15, 1)]),
        ])
    func readsFunctions(language: SourceFunctions.Language, text: String, expected: [(String, Int, Int)]) {
        let read = SourceFunctions(text, language: language)
        #expect(read.balanced)
        #expect(read.functions == expected.map { SourceFunctions.Function(name: $0.0, line: $0.1, lines: $0.2) })
    }
}
