internal import CArrowData
import Foundation
import Mappings
import MappingsEncoding

// The C functions the Python module (integrations/python/src/_native.c) calls: every handle
// is a retained Swift object, every returned buffer a malloc'd block the caller frees with
// mappings_py_free. None of them touches Python: the module calls them with the GIL released.

/// The C signature of the function a script's log lines go to.
public typealias LogFunction = @convention(c) (UnsafePointer<CChar>?, Int64) -> Void

private func handle(_ object: AnyObject) -> UnsafeMutableRawPointer {
    Unmanaged.passRetained(object).toOpaque()
}

private func object<T: AnyObject>(_ pointer: UnsafeMutableRawPointer, as: T.Type) -> T {
    Unmanaged<T>.fromOpaque(pointer).takeUnretainedValue()
}

private func copy(_ text: String) -> UnsafeMutablePointer<CChar> {
    strdup(text)!
}

private func buffer(_ bytes: [UInt8], length: UnsafeMutablePointer<Int64>) -> UnsafeMutablePointer<UInt8> {
    let pointer = malloc(max(1, bytes.count))!.assumingMemoryBound(to: UInt8.self)
    bytes.withUnsafeBufferPointer { source in
        if let base = source.baseAddress { pointer.update(from: base, count: bytes.count) }
    }
    length.pointee = Int64(bytes.count)
    return pointer
}

/// Loads a catalog; on failure returns NULL with `error` set to the diagnostics (malloc'd).
@_cdecl("mappings_py_load")
public func mappingsPyLoad(
    contexts: UnsafePointer<CChar>, scripts: UnsafePointer<CChar>, options: UnsafePointer<CChar>,
    log: LogFunction?, error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> UnsafeMutableRawPointer? {
    let given = (try? JSONParser.parse(Array(String(cString: options).utf8))) ?? .object(JSONObject())
    do {
        let catalog = try PythonCatalog.load(
            contexts: String(cString: contexts), scripts: String(cString: scripts), options: given
        ) { line in
            guard let log else { return }
            line.withCString { log($0, Int64(strlen($0))) }
        }
        return handle(catalog)
    } catch let failure {
        error.pointee = copy(PythonCatalog.describe(failure))
        return nil
    }
}

/// The identifiers of a catalog's contexts, one per line (malloc'd).
@_cdecl("mappings_py_identifiers")
public func mappingsPyIdentifiers(catalog: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar> {
    copy(object(catalog, as: PythonCatalog.self).catalog.identifiers.joined(separator: "\n"))
}

/// The load's warnings as the tool prints them (malloc'd; empty when none).
@_cdecl("mappings_py_warnings")
public func mappingsPyWarnings(catalog: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar> {
    copy(object(catalog, as: PythonCatalog.self).warningsText)
}

/// A context to map with (`arrow`: encoded for Arrow columns); NULL with `error` set when the
/// catalog has no such context.
@_cdecl("mappings_py_context")
public func mappingsPyContext(
    catalog: UnsafeMutableRawPointer, identifier: UnsafePointer<CChar>, arrow: Int32,
    error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> UnsafeMutableRawPointer? {
    do {
        let context = try PythonContext(
            owner: object(catalog, as: PythonCatalog.self), identifier: String(cString: identifier),
            forArrow: arrow != 0)
        return handle(context)
    } catch let failure {
        error.pointee = copy(PythonCatalog.describe(failure))
        return nil
    }
}

/// Releases a catalog, context or session handle.
@_cdecl("mappings_py_release")
public func mappingsPyRelease(_ pointer: UnsafeMutableRawPointer) {
    Unmanaged<AnyObject>.fromOpaque(pointer).release()
}

@_cdecl("mappings_py_free")
public func mappingsPyFree(_ pointer: UnsafeMutableRawPointer?) {
    free(pointer)
}

/// Maps one payload: one result (`ResultWriter`'s form).
@_cdecl("mappings_py_map")
public func mappingsPyMap(
    context: UnsafeMutableRawPointer, bytes: UnsafePointer<UInt8>, count: Int64, length: UnsafeMutablePointer<Int64>
) -> UnsafeMutablePointer<UInt8> {
    let payload = Array(UnsafeBufferPointer(start: bytes, count: Int(count)))
    return buffer(object(context, as: PythonContext.self).map(payload), length: length)
}

/// A session mapping NDJSON on `workers` lanes.
@_cdecl("mappings_py_lines_open")
public func mappingsPyLinesOpen(context: UnsafeMutableRawPointer, workers: Int32) -> UnsafeMutableRawPointer {
    handle(LineSession(context: object(context, as: PythonContext.self), workers: Int(workers)))
}

/// Queues whole lines; returns how many bytes it took (whole lines): all, unless a session
/// without workers ended its slice first (`LineSession.slice`) — the module then looks for
/// signals and submits the rest.
@_cdecl("mappings_py_lines_submit")
public func mappingsPyLinesSubmit(session: UnsafeMutableRawPointer, bytes: UnsafePointer<UInt8>, count: Int64)
    -> Int64
{
    Int64(object(session, as: LineSession.self).submit(copying: UnsafeBufferPointer(start: bytes, count: Int(count))))
}

/// Queues `count` lines, each `lengths[i]` bytes at `parts[i]` without its line feed: copied
/// once, into one block with their line feeds. Returns -1, or the index of a line that holds a
/// line feed (then nothing is queued); `mapped`: how many lines it took, as
/// `mappings_py_lines_submit` says.
@_cdecl("mappings_py_lines_submit_parts")
public func mappingsPyLinesSubmitParts(
    session: UnsafeMutableRawPointer, parts: UnsafePointer<UnsafePointer<UInt8>?>, lengths: UnsafePointer<Int64>,
    count: Int64, mapped: UnsafeMutablePointer<Int64>
) -> Int64 {
    let lines = (0..<Int(count)).map { index in
        UnsafeBufferPointer(start: parts[index], count: Int(lengths[index]))
    }
    var taken = 0
    let holding = object(session, as: LineSession.self).submit(lines: lines, mapped: &taken)
    mapped.pointee = Int64(taken)
    return Int64(holding ?? -1)
}

/// Waits up to `milliseconds` for the head block; 1 when `mappings_py_lines_take` now returns
/// at once, 0 when the time ran out (the module looks for signals, then waits again).
@_cdecl("mappings_py_lines_wait")
public func mappingsPyLinesWait(session: UnsafeMutableRawPointer, milliseconds: Int32) -> Int32 {
    object(session, as: LineSession.self).wait(milliseconds: Int(milliseconds)) ? 1 : 0
}

/// Ends a session interrupted (Ctrl-C): its lanes end their records and start no other.
@_cdecl("mappings_py_lines_stop")
public func mappingsPyLinesStop(session: UnsafeMutableRawPointer) {
    object(session, as: LineSession.self).stop()
}

/// The ranges `load()`'s Lua limits may take, the tool's (`LuaLimits.Ranges`), as a JSON object
/// of `[low, high]` by argument name (malloc'd).
@_cdecl("mappings_py_limits")
public func mappingsPyLimits() -> UnsafeMutablePointer<CChar> {
    func range(_ range: ClosedRange<Int>) -> JSONValue {
        .array([.integer(Int64(range.lowerBound)), .integer(Int64(range.upperBound))])
    }
    let ranges = JSONValue.object(
        JSONObject(PythonCatalog.limits.map { ($0.argument, range($0.range)) }))
    return copy(ranges.jsonText)
}

/// Blocks submitted and not yet taken.
@_cdecl("mappings_py_lines_pending")
public func mappingsPyLinesPending(session: UnsafeMutableRawPointer) -> Int32 {
    Int32(object(session, as: LineSession.self).pendingBlocks)
}

/// The results of the head block (waits for it); NULL when nothing is pending. The bytes are
/// the session's, not copied: they stay until the session's next take or its release.
@_cdecl("mappings_py_lines_take")
public func mappingsPyLinesTake(session: UnsafeMutableRawPointer, length: UnsafeMutablePointer<Int64>)
    -> UnsafePointer<UInt8>?
{
    guard let results = object(session, as: LineSession.self).takeHeld() else { return nil }
    length.pointee = Int64(results.count)
    // No results (a block of blank lines, or all in the Arrow columns) are no NULL.
    return results.baseAddress ?? UnsafePointer(noResults)
}

nonisolated(unsafe) private let noResults = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

/// Rows in an Arrow session's columns, and about how many bytes they hold.
@_cdecl("mappings_py_arrow_rows")
public func mappingsPyArrowRows(session: UnsafeMutableRawPointer, bytes: UnsafeMutablePointer<Int64>) -> Int64 {
    let arrow = object(session, as: LineSession.self).arrow
    bytes.pointee = Int64(arrow?.heldBytes ?? 0)
    return Int64(arrow?.rows ?? 0)
}

/// Hands an Arrow session's rows over as a struct array and its schema (C Data Interface
/// structures the caller allocated), and empties the columns.
@_cdecl("mappings_py_arrow_export")
public func mappingsPyArrowExport(
    session: UnsafeMutableRawPointer, array: UnsafeMutableRawPointer, schema: UnsafeMutableRawPointer
) {
    object(session, as: LineSession.self).arrow?.export(
        array: array.assumingMemoryBound(to: ArrowArray.self), schema: schema.assumingMemoryBound(to: ArrowSchema.self))
}

/// A context's Arrow schema, exported (for an empty table).
@_cdecl("mappings_py_arrow_schema")
public func mappingsPyArrowSchema(context: UnsafeMutableRawPointer, schema: UnsafeMutableRawPointer) {
    ArrowBuilder.export(
        schema: object(context, as: PythonContext.self).schema, into: schema.assumingMemoryBound(to: ArrowSchema.self))
}

/// A context's Arrow schema as pyarrow prints it (malloc'd).
@_cdecl("mappings_py_arrow_schema_text")
public func mappingsPyArrowSchemaText(context: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar> {
    copy(ArrowBuilder.schemaText(object(context, as: PythonContext.self).schema))
}

/// Runs the `"@tests"` of a catalog's contexts (of `identifier` alone, when not NULL), as
/// `mappings test` does: a list of objects (`context`, `number`, `title`, `passed`,
/// `failures`) in tags.
@_cdecl("mappings_py_tests")
public func mappingsPyTests(
    catalog: UnsafeMutableRawPointer, identifier: UnsafePointer<CChar>?, length: UnsafeMutablePointer<Int64>
) -> UnsafeMutablePointer<UInt8> {
    let loaded = object(catalog, as: PythonCatalog.self).catalog
    let results = ContextTestRunner.run(loaded, contexts: identifier.map { [String(cString: $0)] })
    let list = JSONValue.array(
        results.map { result in
            .object(
                JSONObject([
                    ("context", .string(result.context)), ("number", .integer(Int64(result.number))),
                    ("title", .string(result.title)), ("passed", .bool(result.passed)),
                    ("failures", .array(result.failures.map { .string($0) })),
                ]))
        })
    var out: [UInt8] = []
    ResultWriter.appendJSON(list, into: &out)
    return buffer(out, length: length)
}
