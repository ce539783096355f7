import MappingsJSON
import MappingsModel

extension ContextCompiler {
    static let testKeys = ["name", "input", "output", "outputIncludes", "issues", "many", "into", "tables"]
    static let issueKeys = ["kind", "severity", "path", "property", "message"]

    /// The tests of a context's `"@tests"` (an array of test objects), checked for shape.
    /// Tests a context inherits are not its own and are skipped: they describe the parent.
    mutating func compileTests(_ member: SyntaxMember) -> [ContextTest] {
        guard member.value.inheritedVia.isEmpty else { return [] }
        guard case .array(let elements) = member.value.kind else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@tests\" takes an array of tests, not \(member.value.typeName)",
                    location: member.value.location,
                    help: "write \"@tests\": [ { \"input\": { … }, \"output\": { … } } ]"))
            return []
        }
        return elements.compactMap { compileTest($0) }
    }

    private mutating func compileTest(_ node: SyntaxNode) -> ContextTest? {
        guard let members = node.members else {
            diagnostics.append(
                Diagnostic(
                    message: "a test is an object with \"input\" and \"output\" or \"issues\", not \(node.typeName)",
                    location: node.location))
            return nil
        }
        var test = ContextTest(
            name: nil, input: .null, output: nil, outputIncludes: nil, issues: nil, many: false, location: node.location
        )
        var valid = true
        for member in members where !compileTestMember(member, into: &test) { valid = false }
        if !checkTestCombination(test, members: members) { valid = false }
        if !members.contains(where: { $0.key == "input" }) {
            diagnostics.append(
                Diagnostic(message: "this test has no \"input\"", location: node.location, help: "add \"input\": { … }")
            )
            valid = false
        }
        return valid ? test : nil
    }

    /// One member of a test object, into `test`; whether it is valid (its error reported when not).
    private mutating func compileTestMember(_ member: SyntaxMember, into test: inout ContextTest) -> Bool {
        switch member.key {
        case "name":
            test.name = member.value.stringValue
        case "input":
            test.input = member.value.jsonValue
        case "output":
            test.output = member.value.jsonValue
            test.outputLocation = member.value.location
        case "outputIncludes":
            switch member.value.kind {
            case .object, .array:
                test.outputIncludes = member.value.jsonValue
            default:
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"outputIncludes\" is an object (or, with \"many\", an array) of what the output must hold, not \(member.value.typeName)",
                        location: member.value.location,
                        help: "write \"outputIncludes\": { \"name\": \"Ann\" }, or \"output\" for the whole output")
                )
                return false
            }
        case "many":
            guard case .bool(let flag) = member.value.kind else {
                diagnostics.append(
                    Diagnostic(message: "\"many\" is true or false", location: member.value.location))
                return false
            }
            test.many = flag
        case "into":
            guard case .object = member.value.kind else {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"into\" is the existing object (as JSON) the input populates, not \(member.value.typeName)",
                        location: member.value.location))
                return false
            }
            test.into = member.value.jsonValue
        case "tables":
            guard let fixtures = compileTableFixtures(member.value) else { return false }
            test.tableFixtures = fixtures
        case "issues":
            guard let issues = compileExpectedIssues(member.value) else { return false }
            test.issues = issues
            test.issuesLocation = member.value.location
        default:
            diagnostics.append(
                Diagnostic(
                    message: "unknown key \"\(member.key)\" in a test", location: member.keyLocation,
                    help: Suggestion.help(for: member.key, among: Self.testKeys)
                        ?? "a test has \"input\", \"output\", \"outputIncludes\", \"issues\", \"many\", \"into\", \"tables\" and \"name\""
                ))
            return false
        }
        return true
    }

    /// Whether the members of a test go together (each conflict reported).
    private mutating func checkTestCombination(_ test: ContextTest, members: [SyntaxMember]) -> Bool {
        var valid = true
        if test.output != nil, test.outputIncludes != nil,
            let both = members.first(where: { $0.key == "outputIncludes" })
        {
            diagnostics.append(
                Diagnostic(
                    message: "a test has \"output\" or \"outputIncludes\", not both", location: both.keyLocation,
                    help: "\"output\" checks the whole output; \"outputIncludes\" only the keys it lists"))
            valid = false
        }
        if test.many, test.into != nil, let into = members.first(where: { $0.key == "into" }) {
            diagnostics.append(
                Diagnostic(
                    message: "a test populates one object (\"into\") or maps many (\"many\"), not both",
                    location: into.keyLocation,
                    help: "remove \"into\", or \"many\" and map one payload into it"))
            valid = false
        }
        // `outputIncludes` has the output's shape: one object, or with `many` the array of them.
        if test.output == nil, let includes = members.first(where: { $0.key == "outputIncludes" }) {
            switch (includes.value.kind, test.many) {
            case (.array, false):
                diagnostics.append(
                    Diagnostic(
                        message: "\"outputIncludes\" is an array, but this test maps one payload",
                        location: includes.value.location,
                        help:
                            "add \"many\": true to map an array of payloads, or write what the one output holds: { … }"
                    ))
                valid = false
            case (.object, true):
                diagnostics.append(
                    Diagnostic(
                        message: "\"outputIncludes\" is an object, but this test maps many payloads (\"many\": true)",
                        location: includes.value.location,
                        help: "write an array with what each output holds: [{ … }, { … }]"))
                valid = false
            default: break
            }
        }
        return valid
    }

    private mutating func compileExpectedIssues(_ node: SyntaxNode) -> [ContextTest.ExpectedIssue]? {
        guard case .array(let elements) = node.kind else {
            diagnostics.append(
                Diagnostic(
                    message: "\"issues\" is an array of expected issues, not \(node.typeName)",
                    location: node.location))
            return nil
        }
        var issues: [ContextTest.ExpectedIssue] = []
        for element in elements {
            guard let members = element.members else {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "an expected issue is an object with \"path\", \"kind\", \"severity\", \"property\" or \"message\"",
                        location: element.location))
                return nil
            }
            var issue = ContextTest.ExpectedIssue()
            for member in members {
                guard let text = member.value.stringValue else {
                    diagnostics.append(
                        Diagnostic(message: "\"\(member.key)\" is a string", location: member.value.location))
                    return nil
                }
                switch member.key {
                case "kind": issue.kind = text
                case "severity": issue.severity = text
                case "path": issue.path = text
                case "property": issue.property = text
                case "message": issue.message = text
                default:
                    diagnostics.append(
                        Diagnostic(
                            message: "unknown key \"\(member.key)\" in an expected issue", location: member.keyLocation,
                            help: Suggestion.help(for: member.key, among: Self.issueKeys)))
                    return nil
                }
            }
            issues.append(issue)
        }
        return issues
    }
}
