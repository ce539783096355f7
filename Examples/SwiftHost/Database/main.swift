// Into a database: the pipeline's tweets into a SQLite file (or a PostgreSQL database) through
// a `DatabaseSink`, as a job that goes on where it stopped when it runs again.
//
//     swift run --package-path Examples/SwiftHost example-database tweets.db     (from the repository's root)
//     swift run --package-path Examples/SwiftHost example-database postgresql://app@127.0.0.1:5432/shop
import Foundation
import Mappings
import MappingsLua
import MappingsSQL

// `sqlite:PATH` or a PostgreSQL URI, as `stream --to` takes them; a plain path is a SQLite file.
let argument = CommandLine.arguments.dropFirst().first ?? "tweets.db"
let destination = DatabaseSink.Destination(argument) ?? .sqlite(path: argument)
let input = "Examples/pipeline/tweets.ndjson"

var transformers = TransformerRegistry()
transformers.add(LuaScripts(directory: "scripts"))
let mapper = Mapper(catalog: try Catalog.load(["contexts"], transformers: transformers))
let context = try mapper.context("$TweetModel")

var options = DatabaseSink.Options()
options.createTables = true  // the table `tweet_model`, as `mappings schema --format sql` prints it
options.job = "tweets"  // where the input stands, kept in `mappings_offsets` under this name
options.rejectsTable = "rejects"
let sink = try DatabaseSink(destination, context: context, in: mapper.catalog, options: options)
defer { sink.close() }

// Where the job stopped last; the file's first line when it never ran.
let start = try sink.storedPosition() ?? RecordPosition(source: input)
print("the job starts at \(start)")

/// The lines of the file at `path` from byte `offset` on.
func lines(of path: String, from offset: Int) throws -> [[UInt8]] {
    let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? file.close() }
    try file.seek(toOffset: UInt64(offset))
    var lines = (try file.readToEnd() ?? Data()).split(separator: 0x0A, omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }  // after the last line's line feed
    return lines.map { Array($0) }
}

let stream = MappingStream(records: RecordMapper(mapper: mapper, context: context), workers: 2)
let report = try stream.map(try lines(of: input, from: start.offset ?? 0), into: sink, from: start) { record in
    // Each record that is not clean, in input order (the rejects are in the table too).
    let why = record.outcome.issues.first.map { "\($0.kind.rawValue) at \($0.path)" } ?? "not JSON"
    print("line \(start.line + record.index): \(why)")
}
print("read \(report.records), written \(report.written), rejected \(report.rejected); the job stands at \(report.end)")
