import MappingsCompiler
import MappingsEngine
import MappingsJSON

/// `mappings test --update`: what failing `"@tests"` would expect if they expected what the
/// contexts now give — each test's `"output"` replaced by the output, its `"issues"` by the
/// issues (added after `"output"` when the test had none and there are some) — as new texts of
/// the files that hold them, laid out as `mappings fmt` lays them out. Nothing is written here.
package enum ContextTestUpdate {
    /// A file's text before and after.
    package struct FileUpdate: Equatable {
        package var path: String
        package var before: String
        package var after: String
        /// The titles of the tests it updates.
        package var tests: [String]
    }

    /// The updates of the files that hold failing tests, and the tests left as they are with why.
    package static func updates(
        for results: [ContextTestResult], read: (String) -> [UInt8]?
    ) -> (files: [FileUpdate], skipped: [(title: String, reason: String)]) {
        var skipped: [(String, String)] = []
        var edits: [String: [(range: Range<Int>, text: String, title: String)]] = [:]
        var texts: [String: [UInt8]] = [:]
        var seen: [SourceLocation: String] = [:]
        for result in results where !result.passed {
            guard let actual = result.actual else {
                skipped.append((result.title, "it did not map: \(result.failures.first ?? "")"))
                continue
            }
            let test = result.test
            let output = JSONWriter.string(actual.value)
            if let earlier = seen[test.location], earlier != output {
                skipped.append((result.title, "another context runs the same test and gives another output"))
                continue
            }
            seen[test.location] = output
            let file = test.location.file
            if texts[file] == nil { texts[file] = read(file) }
            guard let bytes = texts[file] else {
                skipped.append((result.title, "\(file) cannot be read"))
                continue
            }
            switch testEdits(test, actual: actual, in: bytes) {
            case .success(let found):
                edits[file, default: []] += found.map { ($0.range, $0.text, result.title) }
            case .failure(let refusal):
                skipped.append((result.title, refusal.reason))
            }
        }
        var files: [FileUpdate] = []
        for (file, fileEdits) in edits.sorted(by: { $0.key < $1.key }) {
            guard let bytes = texts[file] else { continue }
            var updated = bytes
            let ordered = fileEdits.sorted { $0.range.lowerBound > $1.range.lowerBound }
            guard zip(ordered, ordered.dropFirst()).allSatisfy({ $1.range.upperBound <= $0.range.lowerBound }) else {
                for edit in fileEdits { skipped.append((edit.title, "its edits overlap another test's")) }
                continue
            }
            for edit in ordered { updated.replaceSubrange(edit.range, with: Array(edit.text.utf8)) }
            guard let laidOut = MappingsFormatter.format(updated) else {
                for edit in fileEdits { skipped.append((edit.title, "\(file) would not parse once updated")) }
                continue
            }
            var titles: [String] = []
            for edit in fileEdits where !titles.contains(edit.title) { titles.append(edit.title) }
            files.append(
                FileUpdate(path: file, before: String(decoding: bytes, as: UTF8.self), after: laidOut, tests: titles))
        }
        return (files, skipped)
    }

    /// Why a test is not updated.
    package struct Refusal: Error {
        var reason: String
    }

    /// The replacements one test needs: its output's value, its issues' value (or a new member).
    private static func testEdits(_ test: ContextTest, actual: MappingResult, in bytes: [UInt8]) -> Result<
        [(range: Range<Int>, text: String)], Refusal
    > {
        var found: [(Range<Int>, String)] = []
        let parsed = (try? JSONParser.parse(JSONWriter.string(actual.value))) ?? .null
        let outputDiffers =
            test.output.map { !ContextTestRunner.differences(expected: $0, actual: parsed, path: "$").isEmpty } ?? false
        let issuesDiffer = !ContextTestRunner.issueDifferences(expected: test.issues ?? [], actual: actual.issues)
            .isEmpty
        if test.output == nil, test.outputIncludes != nil, !issuesDiffer {
            return .failure(Refusal(reason: "\"outputIncludes\" says which part matters: update it by hand"))
        }
        var outputRange: Range<Int>?
        if let location = test.outputLocation {
            guard let range = valueRange(at: location, in: bytes) else {
                return .failure(Refusal(reason: "its \"output\" was not found where it was read"))
            }
            outputRange = range
            if outputDiffers { found.append((range, JSONWriter.string(actual.value))) }
        }
        if issuesDiffer {
            let issues = JSONWriter.string(.array(actual.issues.map(expected)))
            if let location = test.issuesLocation {
                guard let range = valueRange(at: location, in: bytes) else {
                    return .failure(Refusal(reason: "its \"issues\" were not found where they were read"))
                }
                found.append((range, issues))
            } else if let outputRange {
                found.append((outputRange.upperBound..<outputRange.upperBound, ", \"issues\": " + issues))
            } else {
                return .failure(Refusal(reason: "it has no \"output\" to add \"issues\" after"))
            }
        }
        return .success(found)
    }

    /// An issue as a test expects it: its kind, path and message, and its severity when it is
    /// not an error.
    private static func expected(_ issue: MappingIssue) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("kind", .string(issue.kind.rawValue)), ("path", .string(issue.path)), ("message", .string(issue.message)),
        ]
        if issue.severity != .error { members.append(("severity", .string(issue.severity.rawValue))) }
        return .object(JSONObject(members))
    }

    /// The bytes of the value that starts at `location` (a 1-based line, and a column counted
    /// in Unicode scalars): an object or array to its closing bracket (past strings and
    /// comments), a string to its closing quote, another value to its end.
    static func valueRange(at location: SourceLocation, in bytes: [UInt8]) -> Range<Int>? {
        var offset = 0
        var line = 1
        while line < location.line {
            guard let feed = bytes[offset...].firstIndex(of: 0x0A) else { return nil }
            offset = feed + 1
            line += 1
        }
        var column = 1
        while column < location.column, offset < bytes.count {
            offset += 1
            while offset < bytes.count, bytes[offset] & 0xC0 == 0x80 { offset += 1 }
            column += 1
        }
        guard offset < bytes.count, let end = valueEnd(in: bytes, from: offset) else { return nil }
        return offset..<end
    }

    /// Where the value starting at `start` ends (the byte after it).
    static func valueEnd(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        var depth = 0
        repeat {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index += 1
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                index = bytes[index...].firstIndex(of: 0x0A) ?? bytes.count
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                index += 2
                while index + 1 < bytes.count,
                    !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/"))
                {
                    index += 1
                }
                index += 2
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                index += 1
            default:
                guard depth == 0 else {
                    index += 1
                    continue
                }
                // A number, true, false or null: to the first byte that ends it.
                while index < bytes.count, !" \t\r\n,}]/".utf8.contains(bytes[index]) { index += 1 }
            }
        } while depth > 0
        return index <= bytes.count ? index : nil
    }
}
