public import MappingsCompiler
import MappingsEngine
import MappingsJSON
import MappingsModel

/// The outcome of one `"@tests"` entry: passed, or the differences found.
public struct ContextTestResult: Sendable {
    /// The identifier of the context the test belongs to.
    public var context: String
    /// 1-based position of the test in its context's `"@tests"`.
    public var number: Int
    package var test: ContextTest
    /// What differed, one line each (`$.user.name: expected "Ann", got "Bob"`); empty when it passed.
    public var failures: [String]
    /// What the mapping gave, when it ran (`mappings test --update` writes it into the test).
    package var actual: MappingResult?

    /// Whether the test passed.
    public var passed: Bool { failures.isEmpty }

    /// `$TweetModel test 2 "no id" (contexts/twitter.mappings:75)`.
    public var title: String {
        var text = "\(context) test \(number)"
        if let name = test.name { text += " \"\(name)\"" }
        return text + " (\(test.location.file):\(test.location.line))"
    }
}

/// Runs the tests contexts carry in `"@tests"`: maps each input and compares the output and
/// the issues with what the test expects.
public enum ContextTestRunner {
    /// Runs the tests of every named context (or of `contexts`), in load order; `strict`
    /// converts strictly where a context says nothing of `"@conversions"` (`--strict`).
    public static func run(_ catalog: Catalog, contexts: [String]? = nil, strict: Bool = false) -> [ContextTestResult] {
        let mapper = Mapper(catalog: catalog).strictConversions(strict)
        var results: [ContextTestResult] = []
        for identifier in contexts ?? catalog.identifiers {
            guard let context = catalog.context(identifier) else { continue }
            for (offset, test) in context.tests.enumerated() {
                let (failures, actual) = outcome(of: test, context: identifier, mapper: mapper)
                results.append(
                    ContextTestResult(
                        context: identifier, number: offset + 1, test: test, failures: failures, actual: actual))
            }
        }
        return results
    }

    static func failures(of test: ContextTest, context: String, mapper: Mapper) -> [String] {
        outcome(of: test, context: context, mapper: mapper).failures
    }

    /// What differed, and what the mapping gave (`nil` when it could not run). The tables the
    /// test gives (`"tables"`) stand in for those of their names while it maps.
    static func outcome(of test: ContextTest, context: String, mapper: Mapper) -> (
        failures: [String], actual: MappingResult?
    ) {
        let mapped = TableLookup.withFixtures(test.tables) {
            Result { () throws(MappingsError) -> MappingResult in
                if let into = test.into {
                    let existing = try mapper.existingObject(from: into, context: context)
                    return try mapper.map(test.input, into: existing.value, context: context)
                }
                return test.many
                    ? try mapper.objects(from: test.input, context: context)
                    : try mapper.object(from: test.input, context: context)
            }
        }
        let result: MappingResult
        switch mapped {
        case .success(let mapped): result = mapped
        case .failure(let error): return ([error.description], nil)
        }
        var failures: [String] = []
        if test.output != nil || test.outputIncludes != nil {
            let actual = (try? JSONParser.parse(JSONWriter.string(result.value))) ?? .null
            if let expected = test.output { failures += differences(expected: expected, actual: actual, path: "$") }
            if let expected = test.outputIncludes {
                failures += differences(expected: expected, actual: actual, path: "$", subset: true)
            }
        }
        failures += issueDifferences(expected: test.issues ?? [], actual: result.issues)
        return (failures, result)
    }

    /// Where two JSON values differ: object keys in any order, numbers by value. With `subset`
    /// (`"outputIncludes"`), only the keys `expected` lists are compared, and an expected `null`
    /// matches a missing key; arrays still match element by element, at the same length.
    static func differences(expected: JSONValue, actual: JSONValue, path: String, subset: Bool = false) -> [String] {
        switch (expected, actual) {
        case (.object(let want), .object(let got)):
            var lines: [String] = []
            // Looked for where the other object has it when both keep one order: linear, not quadratic.
            for (index, member) in want.members.enumerated() {
                let at = path + PathText.member(member.key)
                guard let value = got.position(of: member.key, from: index).map({ got.members[$0].value }) else {
                    if subset, member.value == .null { continue }
                    lines.append("\(at): expected \(render(member.value)), but the output has no such key")
                    continue
                }
                lines += differences(expected: member.value, actual: value, path: at, subset: subset)
            }
            for (index, member) in got.members.enumerated()
            where !subset && want.position(of: member.key, from: index) == nil {
                lines.append(
                    "\(path + PathText.member(member.key)): not expected, the output has \(render(member.value))")
            }
            return lines
        case (.array(let want), .array(let got)):
            var lines: [String] = []
            if want.count != got.count {
                lines.append("\(path): expected \(want.count) elements, got \(got.count)")
            }
            for (index, pair) in zip(want, got).enumerated() {
                lines += differences(expected: pair.0, actual: pair.1, path: path + "[\(index)]", subset: subset)
            }
            return lines
        default:
            return sameValue(expected, actual) ? [] : ["\(path): expected \(render(expected)), got \(render(actual))"]
        }
    }

    private static func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.decimalDigits, let y = b.decimalDigits { return x == y }
        return a == b
    }

    static func issueDifferences(expected: [ContextTest.ExpectedIssue], actual: [MappingIssue]) -> [String] {
        var lines: [String] = []
        if expected.count != actual.count {
            lines.append("expected \(expected.count) issue\(expected.count == 1 ? "" : "s"), got \(actual.count)")
        }
        for (index, issue) in actual.enumerated() {
            guard index < expected.count else {
                lines.append("unexpected issue: \(issue)")
                continue
            }
            let want = expected[index]
            var wrong: [String] = []
            if let kind = want.kind, kind != issue.kind.rawValue { wrong.append("kind \"\(kind)\"") }
            if let severity = want.severity, severity != issue.severity.rawValue {
                wrong.append("severity \"\(severity)\"")
            }
            if let path = want.path, path != issue.path { wrong.append("path \"\(path)\"") }
            if let property = want.property, property != issue.property { wrong.append("property \"\(property)\"") }
            if let message = want.message, !issue.message.contains(message) {
                wrong.append("a message with \"\(message)\"")
            }
            if !wrong.isEmpty {
                lines.append("issue \(index + 1): expected \(wrong.joined(separator: ", ")), got \(issue)")
            }
        }
        for missing in expected.dropFirst(actual.count) {
            let fields = [
                missing.kind.map { "kind \"\($0)\"" }, missing.severity.map { "severity \"\($0)\"" },
                missing.path.map { "path \"\($0)\"" },
                missing.property.map { "property \"\($0)\"" }, missing.message.map { "message \"\($0)\"" },
            ].compactMap { $0 }
            lines.append("missing issue: \(fields.joined(separator: ", "))")
        }
        return lines
    }

    private static func render(_ value: JSONValue) -> String {
        let text = JSONWriter.string(value)
        return text.count > 80 ? String(text.prefix(77)) + "…" : text
    }
}
