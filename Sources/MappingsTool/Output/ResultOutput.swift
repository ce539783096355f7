import Foundation
import Mappings
import MappingsStream

/// How `map`, `fetch` and `serialize` hand a result over: the value as one line of JSON on
/// stdout, the issues on stderr (and in `--report`), exit status 1 when one is an error
/// (warnings alone leave it 0).
enum ResultOutput {
    static func emit(_ result: MappingResult, report: String?, omitNulls: Bool = false, capacity: Int = 4096) throws {
        // The report first: a report that cannot be written is exit 2 with nothing on stdout.
        if let report { try writeReport(result.issues, to: report) }
        var text: [UInt8] = []
        text.reserveCapacity(capacity)
        JSONWriter.write(result.value, into: &text, omittingNulls: omitNulls)
        text.append(UInt8(ascii: "\n"))
        FileHandle.standardOutput.write(Data(text))
        for issue in result.issues { Terminal.error(issue.description) }
        if result.hasErrors { throw ToolFailure(status: .issues) }
    }

    /// Writes what the record path wrote (`RecordMapper`) and its issues as `emit` would.
    /// `shown` are the issues written on stderr (all of them unless the caller said why not).
    static func emit(written text: [UInt8], issues: [MappingIssue], shown: [MappingIssue]? = nil, report: String?)
        throws
    {
        if let report { try writeReport(issues, to: report) }
        // Empty: nothing at all on stdout, not an empty line.
        if !text.isEmpty { FileHandle.standardOutput.write(Data(text + [UInt8(ascii: "\n")])) }
        for issue in shown ?? issues { Terminal.error(issue.description) }
        if issues.contains(where: { $0.severity == .error }) { throw ToolFailure(status: .issues) }
    }

    /// Writes records in an output format (`map --to-format`, or JSON lines of several records)
    /// as they are, and their issues (already on stderr) in the report; exit 1 on an error.
    static func emit(records text: [UInt8], issues: [MappingIssue], report: String?) throws {
        if let report { try writeReport(issues, to: report) }
        FileHandle.standardOutput.write(Data(text))
        if issues.contains(where: { $0.severity == .error }) { throw ToolFailure(status: .issues) }
    }

    private static func writeReport(_ issues: [MappingIssue], to path: String) throws {
        do {
            try OutputFile.write(Array((JSONWriter.string(.array(issues.map(\.json))) + "\n").utf8), to: path)
        } catch {
            throw OutputFile.unwritable(error, path: path, what: "the report")
        }
    }
}
