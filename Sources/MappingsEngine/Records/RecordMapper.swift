public import MappingsCompiler
package import MappingsJSON
import MappingsModel

/// The record path: one record's JSON text in, its output JSON or its issues out.
///
/// A record goes through the context's fast plan when the context has one and the record maps
/// cleanly; any other record is mapped by the general engine, which reports exactly what is
/// wrong with it, without calling again the transformers the plan called (a per-record memo).
/// Both write the same bytes for the same record. Every surface that maps records — `mappings
/// stream` and `map`, a server, Spark, a Swift host with `MappingStream` — goes through here.
///
/// ```swift
/// let records = RecordMapper(mapper: mapper, context: try mapper.context("$TweetModel"))
/// var out: [UInt8] = []
/// let outcome = records.map(Array(line.utf8), into: &out)   // out: {"identifier":"1",…}
/// ```
///
/// A value: the plan is compiled once, when it is made; share it between threads freely. A
/// thread that maps many records on one core among several does better with its own
/// `independentCopy()`: then no reference count is shared between cores record by record.
public struct RecordMapper: Sendable {
    /// The mapper whose catalog holds the context.
    public let mapper: Mapper
    /// The context records are mapped with.
    public let context: CompiledContext
    /// Whether unset properties are left out of the output (`--omit-nulls`).
    public let omitsNulls: Bool
    /// The context's fast plan; `nil` without one, or when told to use the general engine.
    private(set) var plan: FastPlan?
    /// Whether mapping a record may call a transformer (an entry of the context, or of one it
    /// maps nested objects with, names one): a record's script log lines then need holding for
    /// their turn; without, nothing is held.
    package let callsTransformers: Bool
    /// Shared by a mapper and its independent copies: what `isCopy(of:)` compares.
    private let identity: Identity
    /// With `encoding(_:)`: what each record's output JSON becomes instead (a surface's rows).
    package private(set) var encoding: (any RecordEncoding)?
    /// With an encoding that has a `directSchema` the plan's objects follow: the plan writes
    /// each record's tags itself.
    private var directTags: DirectTags?

    private final class Identity: Sendable {}

    /// A record mapper for `context`; `usesFastPlan: false` maps every record with the general
    /// engine (the same output, slower: what `--general-engine` does).
    public init(mapper: Mapper, context: CompiledContext, usesFastPlan: Bool = true, omittingNulls: Bool = false) {
        self.mapper = mapper
        self.context = context
        self.omitsNulls = omittingNulls
        self.plan = usesFastPlan ? try? mapper.fastPlan(for: context).get() : nil
        self.callsTransformers = mapper.catalog.callsTransformers(mappingWith: context)
        self.identity = Identity()
    }

    /// The same mapper with a plan of its own (compiled again, its tables and formats in
    /// storage of their own), for one thread of several: mapping a record touches the
    /// reference counts of the plan's storage, and two cores counting on the same storage pass
    /// its cache line to and fro on every record.
    public func independentCopy() -> RecordMapper {
        var copy = self
        if plan != nil { copy.plan = try? mapper.fastPlan(for: context).get() }
        if let encoding { copy = copy.encoding(encoding) }
        return copy
    }

    /// The same mapper writing each record's output through `encoding` instead of as its JSON text.
    package func encoding(_ encoding: any RecordEncoding) -> RecordMapper {
        var copy = self
        copy.encoding = encoding
        if let plan, let direct = encoding as? any DirectTagEncoding, let schema = direct.directSchema {
            copy.directTags = plan.directTags(schema, direct)
        } else {
            copy.directTags = nil
        }
        return copy
    }

    /// Whether `other` is this mapper or a copy of it (`independentCopy()`), or this one a copy of `other`.
    public func isCopy(of other: RecordMapper) -> Bool {
        identity === other.identity
    }

    /// Whether records that map cleanly go through a fast plan.
    public var hasFastPlan: Bool { plan != nil }

    /// Whether the fast plan writes the encoding's tags itself (`DirectTagEncoding`).
    package var writesTagsDirectly: Bool { directTags != nil }

    /// Maps one record, appending its output JSON (without a line end) to `out` unless the
    /// record is not JSON; the outcome says how it went.
    public func map(_ record: [UInt8], into out: inout [UInt8]) -> RecordOutcome {
        record.withUnsafeBufferPointer { map($0, into: &out) }
    }

    /// Whether `prepare` makes the transformer calls of many records at once (Lua in worker
    /// processes): a caller with many records at hand then prepares them in chunks.
    package var batchesCalls: Bool { plan?.batchesCalls == true }

    /// The transformer calls of `records` made ahead, in batches: a memo per record, which
    /// `map(_:into:memo:)` then takes the answers from (the same output, the same log lines).
    package func prepare(_ records: [UnsafeBufferPointer<UInt8>]) -> [TransformerMemo]? {
        guard let plan, plan.batchesCalls else { return nil }
        return plan.prepare(records)
    }

    /// `map(_:into:)` over a record's bytes in place: a line of a larger buffer, not copied.
    public func map(_ record: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> RecordOutcome {
        map(record, into: &out, memo: nil)
    }

    /// `map(_:into:)` with the memo `prepare` made for the record (`nil`: calls are made as they come).
    package func map(_ record: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], memo prepared: TransformerMemo?)
        -> RecordOutcome
    {
        guard let encoding else { return mapJSON(record, into: &out, memo: prepared) }
        var memo = prepared
        var usesPlan = true
        if let directTags, let plan {
            // The record's tags, written by the plan: no JSON between.
            memo = prepared ?? (plan.callsTransformers ? TransformerMemo() : nil)
            switch plan.writeTags(record, into: &out, omittingNulls: omitsNulls, memo: memo, directTags) {
            case .written: return RecordOutcome(kind: .clean, byFastPlan: true)
            case .filtered: return RecordOutcome(kind: .filtered, byFastPlan: true)
            // The general engine maps it, with the answers of the calls the plan made.
            case .givenBack: usesPlan = false
            }
        }
        let start = out.count
        let outcome = mapJSON(record, into: &out, memo: memo, usesPlan: usesPlan)
        guard out.count > start else { return outcome }
        let length = out.count - start
        // The JSON moves aside (on the stack when small) while its encoding takes its place.
        let encoded: Result<Void, RecordEncodingFailure> = withUnsafeTemporaryAllocation(
            of: UInt8.self, capacity: length
        ) { json in
            _ = json.initialize(from: out[start...])
            out.removeLast(length)
            return Result { () throws(RecordEncodingFailure) in
                try encoding.encodeRecord(UnsafeBufferPointer(json), into: &out)
            }
        }
        do throws(RecordEncodingFailure) {
            try encoded.get()
            return outcome
        } catch {
            out.removeSubrange(start...)
            let issue = MappingIssue(
                record: .outputNotInSchema,
                message: "the record's output does not fit \(encoding.target): \(error.message)", context: context)
            var failed = RecordOutcome(kind: .withErrors, issues: outcome.issues + [issue])
            failed.unwritable = true
            return failed
        }
    }

    private func mapJSON(
        _ record: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], memo prepared: TransformerMemo?,
        usesPlan: Bool = true
    ) -> RecordOutcome {
        let memo = prepared ?? (plan?.callsTransformers == true ? TransformerMemo() : nil)
        if let plan, usesPlan {
            switch plan.write(record, into: &out, omittingNulls: omitsNulls, memo: memo, filtering: true) {
            case .written: return RecordOutcome(kind: .clean, byFastPlan: true)
            case .filtered: return RecordOutcome(kind: .filtered, byFastPlan: true)
            case .givenBack: break
            }
        }
        let result: MappingResult
        do {
            result = try mapper.object(fromJSON: record, using: context, memo: memo)
        } catch {
            return RecordOutcome(kind: .invalid, failure: error)
        }
        // Dropped by the context's `@filter`, without an error: nothing is written.
        if result.filtered, !result.hasErrors { return RecordOutcome(kind: .filtered, issues: result.issues) }
        JSONWriter.write(result.value, into: &out, omittingNulls: omitsNulls)
        let kind: RecordOutcome.Kind =
            result.issues.isEmpty ? .clean : result.hasErrors ? .withErrors : .withWarnings
        return RecordOutcome(kind: kind, issues: result.issues)
    }
}

/// How mapping one record went.
public struct RecordOutcome: Sendable {
    /// What became of the record.
    public enum Kind: Sendable, Hashable {
        /// Mapped without an issue.
        case clean
        /// Mapped; every issue is a warning (or info): the record stands.
        case withWarnings
        /// Mapped with at least one error: a stream rejects it (unless told to emit it).
        case withErrors
        /// Not JSON: nothing was written; `failure` says where and why.
        case invalid
        /// The context's `@filter` dropped it: nothing was written, and it is no reject.
        case filtered
    }

    public var kind: Kind
    /// The issues, in payload order (empty for a clean or an invalid record).
    public var issues: [MappingIssue] = []
    /// Whether the context's fast plan wrote it.
    public var byFastPlan = false
    /// For an invalid record: what the reader found wrong, with its column.
    package var failure: JSONParser.Failure?
    /// Whether the record has no output to write even with errors (`--on-issue emit`): its
    /// output did not fit the encoding it is written in (`RecordMapper.encoding(_:)`).
    package var unwritable = false

    /// For an invalid record: `column 33: expected ':' after a key`.
    public var invalidReason: String? {
        failure.map { "column \($0.column): \($0.message)" }
    }

    /// The record's issues as a reject lists them: its own, or, for a record that is not JSON,
    /// the one `invalid JSON` issue that says where.
    package func rejectIssues(context: CompiledContext) -> [MappingIssue] {
        guard kind == .invalid else { return issues }
        return [MappingIssue(record: .invalidJSON, message: invalidReason ?? "not JSON", context: context)]
    }

    package init(kind: Kind, issues: [MappingIssue] = [], byFastPlan: Bool = false, failure: JSONParser.Failure? = nil)
    {
        self.kind = kind
        self.issues = issues
        self.byFastPlan = byFastPlan
        self.failure = failure
    }
}

/// What a record's output JSON becomes for a surface that reads another format (Spark's rows:
/// MappingsSpark), given to `RecordMapper.encoding(_:)`. The engine names no such format.
package protocol RecordEncoding: Sendable {
    /// What the output must fit, for a failure's message: `the context's Spark schema`.
    var target: String { get }
    /// Appends the encoding of a record's output `json` to `out`; throws when it does not fit.
    func encodeRecord(_ json: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) throws(RecordEncodingFailure)
}

/// A `RecordEncoding` whose record is its value tags (`ValueTag`) framed by their length (the
/// Python module's values), which a fast plan may write itself, with no JSON between.
package protocol DirectTagEncoding: RecordEncoding {
    /// The schema the tags follow; `nil`: the plan writes JSON, encoded after.
    var directSchema: ValueSchema? { get }
    /// Appends the tags of the value `json` read as node `node` of `directSchema` (a value the
    /// plan does not write itself); `false` when it does not fit.
    func encodeValue(_ json: UnsafeBufferPointer<UInt8>, node: Int, into out: inout [UInt8]) -> Bool
}

/// Why a record's output could not be encoded.
package struct RecordEncodingFailure: Error, Sendable {
    package var message: String
    package init(message: String) { self.message = message }
}
