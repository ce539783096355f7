import Foundation
import Mappings
import MappingsEncoding
import MappingsLua
import MappingsSpark

/// A catalog loaded for the Python module: the mapper, and the contexts it asked for, each
/// with its encoders (`PythonContext`).
final class PythonCatalog: @unchecked Sendable {
    let catalog: Catalog
    let mapper: Mapper

    init(catalog: Catalog) {
        self.catalog = catalog
        mapper = Mapper(catalog: catalog)
    }

    /// Loads `contexts` (a .mappings file or a folder of them) with the Lua scripts of
    /// `scripts`, the traits and limits of `options` (a JSON object: `traits`, `luaMemoryMiB`,
    /// `luaBudget`, `luaTimeoutMs`, `luaMaxResultMiB`, `maxTableMemoryMiB`), the lookup tables
    /// of its `tables` (`definitions(tables:)`), and the scripts' log lines given to `log`.
    static func load(
        contexts: String, scripts: String, options given: JSONValue, log: @escaping @Sendable (String) -> Void
    )
        throws -> PythonCatalog
    {
        var traits = Traits()
        let options: JSONObject
        if case .object(let object) = given { options = object } else { options = JSONObject() }
        if case .object(let given)? = options["traits"] {
            for (key, value) in given.members {
                switch value {
                case .string(let text): traits[key] = text
                case .bool(let flag): traits[key] = flag ? "true" : "false"
                default: traits[key] = value.jsonText
                }
            }
        }
        // The module checks each limit first, with Python's words; this keeps a value out of
        // range from ever reaching the limits (a negative cap, a shift that overflows).
        var given: [String: Int] = [:]
        for limit in Self.limits {
            guard let value = options[limit.key] else { continue }
            guard case .integer(let number) = value, limit.range.contains(Int(number)) else {
                throw PythonFailure(
                    message:
                        "\(limit.argument) must be between \(limit.range.lowerBound) and \(limit.range.upperBound), not \(value.jsonText)"
                )
            }
            given[limit.key] = Int(number)
        }
        let lua = LuaLimits(
            memory: (given["luaMemoryMiB"] ?? 64) << 20, instructions: given["luaBudget"] ?? 10_000_000,
            timeout: .milliseconds(given["luaTimeoutMs"] ?? 1000), result: (given["luaMaxResultMiB"] ?? 8) << 20)
        var registry = TransformerRegistry()
        registry.add(LuaScripts(directory: scripts, limits: lua, isolation: .inProcess, log: LuaLog(write: log)))
        var memory = Catalog.defaultMaxTableMemory
        if case .integer(let mib)? = options["maxTableMemoryMiB"], (1...1_048_576).contains(mib) {
            memory = Int(mib) << 20
        }
        return PythonCatalog(
            catalog: try Catalog.load(
                [contexts], traits: traits, transformers: registry, definitions: definitions(tables: options["tables"]),
                maxTableMemory: memory))
    }

    /// The tables the module gives (`load(tables=…)`), as a host gives them: by name, an object
    /// of `rows` (an array of objects) or `file` (a path), with `key` (an array of column
    /// names), `columns` (types by name) and `table` (a database's table) when given.
    static func definitions(tables: JSONValue?) -> Definitions {
        var definitions = Definitions()
        guard case .object(let tables)? = tables else { return definitions }
        for (name, given) in tables.members {
            guard case .object(let table) = given else { continue }
            var key: [String] = []
            if case .array(let names)? = table["key"] {
                key = names.compactMap { if case .string(let name) = $0 { name } else { nil } }
            }
            var columns: [String: String] = [:]
            if case .object(let types)? = table["columns"] {
                for (column, type) in types.members { if case .string(let type) = type { columns[column] = type } }
            }
            let location = "load(tables=)"
            if case .string(let file)? = table["file"] {
                var databaseTable: String?
                if case .string(let text)? = table["table"] { databaseTable = text }
                definitions.table(
                    name, file: file, key: key, columns: columns, databaseTable: databaseTable,
                    fileID: location, filePath: location, line: 1)
            } else if case .array(let rows)? = table["rows"] {
                definitions.table(
                    name, rows: rows, key: key, columns: columns, fileID: location, filePath: location,
                    line: 1)
            }
        }
        return definitions
    }

    /// The Lua limits `load` takes: the key of its options, the argument of the module's
    /// `load()`, and the range of the tool's option (`LuaLimits.Ranges`).
    static let limits: [(key: String, argument: String, range: ClosedRange<Int>)] = [
        ("luaMemoryMiB", "lua_memory_mib", LuaLimits.Ranges.memoryMiB),
        ("luaBudget", "lua_budget", LuaLimits.Ranges.budget),
        ("luaTimeoutMs", "lua_timeout_ms", LuaLimits.Ranges.timeoutMilliseconds),
        ("luaMaxResultMiB", "lua_max_result_mib", LuaLimits.Ranges.maxResultMiB),
    ]

    /// The warnings of the load, as the tool prints them on stderr (empty when there are none).
    var warningsText: String {
        let files = Set(catalog.warnings.compactMap { $0.location?.file })
        let sources = Dictionary(
            uniqueKeysWithValues: files.compactMap { file in
                (try? String(contentsOfFile: file, encoding: .utf8)).map { (file, $0) }
            })
        let renderer = DiagnosticRenderer(sources: sources, style: .plain)
        return catalog.warnings.map { renderer.render($0, severity: "warning") }.joined(separator: "\n")
    }

    /// The diagnostics of a failed load (or of an unknown context) as `mappings check` prints them.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? MappingsError else { return String(describing: error) }
        let renderer = DiagnosticRenderer(sources: error.sources, style: .plain)
        return renderer.render(error.diagnostics, warnings: error.warnings)
    }
}

/// A context of a `PythonCatalog`, ready to map: its record path with the value encoding of
/// Python values or of Arrow columns.
final class PythonContext: @unchecked Sendable {
    let owner: PythonCatalog
    let compiled: CompiledContext
    let schema: ValueSchema
    let encoder: ValueEncoder
    let records: RecordMapper

    init(owner: PythonCatalog, identifier: String, forArrow: Bool) throws {
        self.owner = owner
        compiled = try owner.mapper.context(identifier)
        guard let schema = ValueSchema(spark: owner.catalog.sparkSchema(of: compiled)) else {
            throw PythonFailure(
                message: "the output schema of \(identifier) holds a type the Python module does not read")
        }
        self.schema = schema
        encoder = ValueEncoder(schema: schema, forArrow: forArrow)
        records = RecordMapper(mapper: owner.mapper, context: compiled).encoding(encoder)
    }

    /// Maps one payload (an object; an array maps each of its elements, as `map --many`):
    /// one result.
    func map(_ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var output: [UInt8] = []
        if JSONParser.firstByte(of: payload) == UInt8(ascii: "[") {
            let result: MappingResult
            do {
                result = try owner.mapper.objects(fromJSON: payload, using: compiled)
            } catch {
                let outcome = RecordOutcome(kind: .invalid, failure: error)
                ResultWriter.append(
                    line: 1, outcome: outcome, context: compiled, value: nil, input: payload, into: &out)
                return out
            }
            JSONWriter.write(result.value, into: &output)
            var tags: [UInt8] = []
            var outcome = RecordOutcome(
                kind: result.issues.isEmpty ? .clean : result.hasErrors ? .withErrors : .withWarnings,
                issues: result.issues)
            do throws(EncodingFailure) {
                try output.withUnsafeBufferPointer { json throws(EncodingFailure) in
                    try encoder.encodeArray(json, into: &tags)
                }
            } catch {
                outcome.kind = .withErrors
                outcome.issues.append(
                    MappingIssue(
                        record: .outputNotInSchema,
                        message: "the output does not fit \(encoder.target): \(error.message)", context: compiled))
                tags = []
            }
            ResultWriter.append(
                line: 1, outcome: outcome, context: compiled, value: tags.isEmpty ? nil : tags[...], input: payload,
                into: &out)
            return out
        }
        let outcome = records.map(payload, into: &output)
        let value: ArraySlice<UInt8>? = output.count >= 4 ? output[4...] : nil
        ResultWriter.append(line: 1, outcome: outcome, context: compiled, value: value, input: payload, into: &out)
        return out
    }
}

struct PythonFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Writes results as the Python module reads them: for each record, its line (4 bytes, from
/// 1), its status (1 byte: 0 clean, 1 warnings, 2 errors, 3 not JSON, 4 filtered), its value's
/// tags (`ValueTag.absent` when none), its issues' tags (an array of the one issue object),
/// then, for a record that is no value (errors, not JSON), its input line (a 4-byte length,
/// the bytes).
enum ResultWriter {
    static func status(_ kind: RecordOutcome.Kind) -> UInt8 {
        switch kind {
        case .clean: 0
        case .withWarnings: 1
        case .withErrors: 2
        case .invalid: 3
        case .filtered: 4
        }
    }

    /// A clean record's result: its line, status 0, its value's tags, no issues (`append` of a
    /// clean outcome, without the outcome).
    static func appendClean(line: Int, value: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: line).littleEndian) { out.append(contentsOf: $0) }
        out.append(status(.clean))
        out.append(contentsOf: value)
        out.append(contentsOf: noIssues)
    }

    /// The issues of a clean record: an empty array.
    static let noIssues: [UInt8] = [ValueTag.array.rawValue, 0, 0, 0, 0]

    /// `issues`: the record's issues when they are not the outcome's (a line over the limit).
    static func append(
        line: Int, outcome: RecordOutcome, context: CompiledContext, value: ArraySlice<UInt8>?,
        input: some Collection<UInt8>, into out: inout [UInt8], issues: [MappingIssue]? = nil
    ) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: line).littleEndian) { out.append(contentsOf: $0) }
        out.append(status(outcome.kind))
        if let value, !outcome.unwritable {
            out.append(contentsOf: value)
        } else {
            out.append(ValueTag.absent.rawValue)
        }
        appendJSON(.array((issues ?? outcome.rejectIssues(context: context)).map(\.json)), into: &out)
        if outcome.kind == .withErrors || outcome.kind == .invalid {
            // A payload past 4 GiB (a `map` of one, not a line of a stream) comes back cut there.
            let kept = input.prefix(Int(UInt32.max))
            withUnsafeBytes(of: UInt32(kept.count).littleEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: kept)
        }
    }

    /// A JSON value's tags (the issues: strings, objects, arrays).
    static func appendJSON(_ value: JSONValue, into out: inout [UInt8]) {
        func count(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { out.append(contentsOf: $0) } }
        switch value {
        case .null: out.append(ValueTag.null.rawValue)
        case .bool(let flag): out.append(flag ? ValueTag.yes.rawValue : ValueTag.no.rawValue)
        case .string(let text):
            out.append(ValueTag.string.rawValue)
            count(text.utf8.count)
            out.append(contentsOf: text.utf8)
        case .integer(let integer):
            out.append(ValueTag.integer.rawValue)
            withUnsafeBytes(of: UInt64(bitPattern: integer).littleEndian) { out.append(contentsOf: $0) }
        case .double(let double):
            out.append(ValueTag.double.rawValue)
            withUnsafeBytes(of: double.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        case .number(let number):
            out.append(ValueTag.decimal.rawValue)
            count(number.literal.utf8.count)
            out.append(contentsOf: number.literal.utf8)
        case .array(let elements):
            out.append(ValueTag.array.rawValue)
            count(elements.count)
            for element in elements { appendJSON(element, into: &out) }
        case .object(let object):
            out.append(ValueTag.object.rawValue)
            count(object.count)
            for (key, member) in object.members {
                count(key.utf8.count)
                out.append(contentsOf: key.utf8)
                appendJSON(member, into: &out)
            }
        }
    }
}
