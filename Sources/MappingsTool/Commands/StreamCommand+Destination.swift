import ArgumentParser
import Foundation
import Mappings
import MappingsSQL
import MappingsSpark
import MappingsStream

/// `stream --to`: the database destination, its table, and where a job resumes.
extension StreamCommand {
    /// The options of `--to` are used with it, and with what it can go with.
    func validateDestination() throws {
        guard let to else {
            for (given, name) in [
                (table != nil, "--table"), (createTables, "--create-tables"), (job != nil, "--job"),
                (batch != nil, "--batch"), (batchSeconds != nil, "--batch-seconds"), (retryFor != nil, "--retry-for"),
                (rejectsTable != nil, "--rejects-table"),
            ] where given {
                throw ValidationError("\(name) is an option of --to (a database to write the records into)")
            }
            return
        }
        guard DatabaseSink.Destination(to) != nil else {
            throw ValidationError(
                "--to takes sqlite:PATH or a PostgreSQL URI (postgresql://USER@HOST:PORT/DB), not '\(to)'")
        }
        for (given, name) in [(sparkFrames, "--spark-frames"), (watch, "--watch")] where given {
            throw ValidationError(
                "--to writes rows of a table fixed when the stream starts: drop \(name)")
        }
        if job != nil, resumeFrom != nil {
            throw ValidationError(
                "--job resumes where the job's last transaction left the input: drop --resume-from")
        }
        if let batch { try OptionRange(option: "--batch", range: 1...1_000_000).check(batch) }
        if let retryFor { try OptionRange(option: "--retry-for", range: 0...86400, unit: "seconds").check(retryFor) }
        if let batchSeconds, !(batchSeconds > 0 && batchSeconds <= 3600) {
            throw ValidationError("--batch-seconds must be between 0 and 3600 seconds, not \(batchSeconds)")
        }
        if let rejectsTable, rejects != nil {
            throw ValidationError("rejects go either to --rejects or to --rejects-table \(rejectsTable), not both")
        }
    }

    /// The sink of `--to`, its table ready; exit 2 (or 69 when the database cannot be reached)
    /// saying why not, before any record is read.
    func destination(_ catalog: Catalog, _ compiled: CompiledContext) throws -> DatabaseSink? {
        guard let to, let destination = DatabaseSink.Destination(to) else { return nil }
        var options = DatabaseSink.Options()
        options.table = table
        options.createTables = createTables
        options.job = job
        options.batchRecords = batch ?? options.batchRecords
        if let batchSeconds { options.batchInterval = .milliseconds(Int(batchSeconds * 1000)) }
        options.retryFor = .seconds(retryFor ?? 60)
        options.rejectsTable = rejectsTable
        options.log = { Terminal.error($0) }
        do {
            return try DatabaseSink(destination, context: compiled, in: catalog, options: options)
        } catch {
            Terminal.error("error: --to: \(error.message)")
            throw ToolFailure(status: error.unavailable ? .destinationUnavailable : .loadFailure)
        }
    }

    /// With `--job`: where its last transaction left the input, as `--resume-from` would start
    /// there (the inputs before it skipped; the line checked to start where it did), or `nil`
    /// for a job that has not run.
    func jobStart(_ sink: DatabaseSink, in sources: [(name: String?, descriptor: Int32)]) throws
        -> (start: StreamRun.Start, index: Int)?
    {
        let stored: StreamRun.Resume?
        do {
            stored = try sink.storedPosition().map(StreamRun.Resume.init)
        } catch {
            Terminal.error("error: --to: \(error.message)")
            throw ToolFailure(status: error.unavailable ? .destinationUnavailable : .loadFailure)
        }
        guard let stored, let job else { return nil }
        guard let index = sources.firstIndex(where: { $0.name == stored.file }) else {
            Terminal.error(
                "error: --job \(job) stopped in \"\(stored.file ?? "-")\" (\(stored.argument)), which is not an input of this stream: give the same inputs, or another --job"
            )
            throw ToolFailure(status: .loadFailure)
        }
        // The end of a file read to its end (whose last line may have no line end) is no line
        // of it: reading starts there, and finds what was appended since.
        if let offset = stored.offset, let size = InputFingerprint.size(of: sources[index].descriptor), offset == size {
            guard lseek(sources[index].descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
                throw InputFile.unreadable(
                    InputFile.Failure(errno: errno), path: stored.file, what: "the input")
            }
            return (StreamRun.Start(offset: offset, linesBefore: stored.line - 1), index)
        }
        let request = StreamRun.ResumeRequest(job: job, place: stored)
        return (try Self.start(at: request, in: sources, index: index), index)
    }
}
