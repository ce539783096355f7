import Foundation
import Mappings
import MappingsStream

/// `map --from-format` and `--to-format`: an input of several records (a CSV file's rows) maps
/// each record as `stream` does, on the record path, and writes one record a line (JSON lines),
/// or the output's format (`--to-format csv`: a header, then a row per record).
extension MapCommand {
    /// One record to map: its JSON text, and where it is for messages (`rows.csv:3`, `[2]`).
    struct FormattedRecord {
        var text: [UInt8]
        var place: String
    }

    /// The input's format when it or the output's is not JSON lines (the input then maps
    /// record by record); `nil` for a JSON payload written as JSON.
    func formatted(_ bytes: [UInt8]) -> RecordFormat? {
        let format = formats.fromFormat ?? RecordFormat.detect(path: input, head: Array(bytes.prefix(4))) ?? .json
        return !format.isJSONLines || !(formats.toFormat?.isJSONLines ?? true) ? format : nil
    }

    /// Maps each record of `bytes`, an input of `format`, and writes them in the output's format.
    func mapFormatted(
        _ bytes: [UInt8], format: RecordFormat, mapper: Mapper, compiled: CompiledContext, catalog: Catalog
    ) throws {
        if many, !format.isJSONLines {
            Terminal.error("note: --many is for a JSON array: every record of a \(format.rawValue) input is mapped")
        }
        let (records, unreadable) = try formattedRecords(bytes, format: format, compiled: compiled)
        try mapRecords(records, unreadable: unreadable, compiled: compiled, mapper: mapper, catalog: catalog)
    }

    /// Maps `records` and writes them in the output's format; each record's issues on stderr
    /// after its place, records the format could not read (`unreadable`) as issues of their own.
    /// Exit 1 when a record has an error or was unreadable (every record that mapped is written).
    func mapRecords(
        _ records: [FormattedRecord], unreadable: [(place: String, issue: MappingIssue)], compiled: CompiledContext,
        mapper: Mapper, catalog: Catalog
    ) throws {
        var encoder = try formats.encoder(for: compiled, in: catalog, command: "map")
        let recordMapper = RecordMapper(
            mapper: mapper, context: compiled, usesFastPlan: !generalEngine, omittingNulls: nulls.omit)
        var output: [UInt8] = []
        do {
            try encoder?.start(into: &output)
        } catch {
            throw Self.unwritable(error)
        }
        var issues = unreadable.map(\.issue)
        for (place, issue) in unreadable { Terminal.error("\(place): \(issue.description)") }
        var filtered = 0
        for record in records {
            var text: [UInt8] = []
            let outcome = recordMapper.map(record.text, into: &text)
            if let failure = outcome.failure {
                // A decoder's record is always JSON; a `--many` element too: never expected.
                Terminal.error("\(record.place): not JSON: \(failure.message)")
                throw ToolFailure(status: .loadFailure)
            }
            for issue in outcome.issues { Terminal.error("\(record.place): \(issue.description)") }
            issues += outcome.issues
            if outcome.kind == .filtered {
                filtered += 1
                continue
            }
            guard encoder != nil else {
                output += text + [0x0A]
                continue
            }
            do {
                try text.withUnsafeBytes { raw in
                    Result { () throws(FormatFailure) in try encoder!.encode(raw, into: &output) }
                }.get()
            } catch {
                throw Self.unwritable(error)
            }
        }
        do {
            try encoder?.finish(into: &output)
        } catch {
            throw Self.unwritable(error)
        }
        if filtered > 0 {
            Terminal.error(
                "mappings map: \(filtered) record\(filtered == 1 ? " was" : "s were") dropped by \"@filter\"")
        }
        try ResultOutput.emit(records: output, issues: issues, report: report.path)
    }

    /// The records of an input of `format`: a decoder's, or (JSON) the payload, or with
    /// `--many` each element of its array; and those the decoder rejected, as issues.
    func formattedRecords(
        _ bytes: [UInt8], format: RecordFormat, compiled: CompiledContext
    ) throws -> (records: [FormattedRecord], unreadable: [(place: String, issue: MappingIssue)]) {
        let name = input ?? "<stdin>"
        guard let decoder = try formats.decoder(format, for: input, command: "map") else {
            guard many else { return ([FormattedRecord(text: bytes, place: name)], []) }
            let payload: JSONValue
            do {
                payload = try JSONParser.parse(bytes)
            } catch {
                throw PayloadInput.invalid(error, path: input, what: "the input")
            }
            guard case .array(let elements) = payload else {
                return ([FormattedRecord(text: bytes, place: name)], [])
            }
            return (
                elements.enumerated().map { index, element in
                    var text: [UInt8] = []
                    JSONWriter.write(element, into: &text)
                    return FormattedRecord(text: text, place: "\(name)[\(index)]")
                }, []
            )
        }
        var reader = decoder
        let decoded: DecodedRecords
        do {
            decoded = try reader.decodeAll(bytes)
        } catch {
            throw FormatOptions.unreadable(error, format: format, path: input, command: "map")
        }
        return Self.records(of: decoded, name: name, compiled: compiled)
    }

    /// The records and rejects of decoded text, each with its line (the input's).
    static func records(
        of decoded: DecodedRecords, name: String, compiled: CompiledContext
    ) -> (records: [FormattedRecord], unreadable: [(place: String, issue: MappingIssue)]) {
        var records: [FormattedRecord] = []
        var unreadable: [(place: String, issue: MappingIssue)] = []
        var rejects = decoded.rejects[...]
        var line = 0
        func rejectsBefore(_ offset: Int) {
            while let first = rejects.first, first.at <= offset {
                rejects.removeFirst()
                let issue = MappingIssue(
                    record: .unreadableRecord, message: first.reject.issueMessage, context: compiled)
                unreadable.append(("\(name):\(line + 1)", issue))
                line += first.reject.lines
            }
        }
        RecordBlock.forEachLine(in: decoded.text, range: decoded.text.indices) { range, _ in
            rejectsBefore(range.lowerBound)
            line += 1
            if !range.isEmpty {
                records.append(FormattedRecord(text: Array(decoded.text[range]), place: "\(name):\(line)"))
            }
            return true
        }
        rejectsBefore(decoded.text.count)
        return (records, unreadable)
    }

    /// `--to-format` could not write a record: exit 2.
    static func unwritable(_ failure: FormatFailure) -> ToolFailure {
        Terminal.error("error: mappings map: --to-format cannot write a record: \(failure.message)")
        return ToolFailure(status: .loadFailure)
    }
}
