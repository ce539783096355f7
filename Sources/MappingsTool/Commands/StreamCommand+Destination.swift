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
                (rejectsTable != nil, "--rejects-table"), (jobInput != nil, "--job-input"),
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
        if let job, let refusal = DatabaseSink.refusal(ofJob: job) { throw ValidationError(refusal) }
        if job == nil, jobInput != nil { throw ValidationError("--job-input says what the inputs are to --job NAME") }
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
    /// there (the inputs before it skipped), or `nil` to read the inputs from their first line
    /// (a job that has not run, read nothing, or `--job-input new`). The job goes on only where
    /// it can tell it read what it skips: in the file it stopped in — found by its name, or by
    /// its identity when it was renamed (rotated) — whose bytes before the place are those it
    /// read; standard input, which it cannot tell from another stream, with `--job-input`.
    func jobStart(_ sink: DatabaseSink, in sources: [(name: String?, descriptor: Int32)]) throws
        -> (start: StreamRun.Start, index: Int)?
    {
        let stored: RecordPosition?
        do {
            stored = try sink.storedPosition()
        } catch {
            Terminal.error("error: --to: \(error.message)")
            throw ToolFailure(status: error.unavailable ? .destinationUnavailable : .loadFailure)
        }
        guard let stored, let job else { return nil }
        let place = StreamRun.Resume(stored)
        func refuse(_ why: String) -> ToolFailure {
            Terminal.error("error: --job \(job) stopped at \(place.argument): \(why)")
            return ToolFailure(status: .loadFailure)
        }
        let startOver = "--job-input new to map the inputs from their first line as new ones"
        switch jobInput {
        case .new?:
            Terminal.error(
                "mappings stream: --job \(job) stopped at \(place.argument); --job-input new maps the inputs from their first line"
            )
            return nil
        case .continue?:
            // A file is found by its identity; its lines numbered on would not be its own.
            if let name = sources[0].name, InputFingerprint.size(of: sources[0].descriptor) != nil {
                throw refuse(
                    "--job-input continue is for standard input (or a pipe), and \(name) is a file: without --job-input the job finds the file it stopped in by its name or identity; or \(startOver)"
                )
            }
            // Standard input goes on from where the job stopped: nothing of it is skipped.
            return (StreamRun.Start(linesBefore: stored.line - 1), 0)
        case nil:
            break
        }
        // Nothing was read where the job stopped: nothing is skipped, whatever the input is.
        if stored.line == 1, stored.offset ?? 0 == 0, !sources.contains(where: { $0.name == stored.source }) {
            return nil
        }
        guard stored.source != nil else {
            throw refuse(
                "standard input cannot be told from another stream, so no line of it is skipped: add --job-input continue when this standard input goes on from there (its first line is line \(stored.line)), or \(startOver)"
            )
        }
        var tried: [(name: String, reason: String)] = []
        for index in candidates(for: stored, in: sources) {
            let source = sources[index]
            let name = source.name ?? "-"
            guard InputFingerprint.size(of: source.descriptor) != nil else {
                tried.append((name, "\(name) is not a regular file, whose lines the job could tell it read"))
                continue
            }
            switch try Self.verify(place, in: source.descriptor, named: name) {
            case .success(let start):
                if source.name != stored.source {
                    let same = stored.identity.map { Self.isFile(source.descriptor, $0) } ?? false
                    Terminal.error(
                        "mappings stream: --job \(job) stopped in \(stored.source ?? "-"), and goes on in \(name): "
                            + (same
                                ? "the same file, renamed since"
                                : "a copy of it, the same bytes up to where the job stopped")
                    )
                }
                return (start, index)
            case .failure(let mismatch):
                tried.append((name, mismatch.reason))
            }
        }
        guard !tried.isEmpty else {
            throw refuse(
                "\"\(stored.source ?? "-")\" is not an input of this stream: give the same inputs (a file rotated since first, by its new name: the job finds it by its identity), another --job, or \(startOver)"
            )
        }
        throw refuse(
            tried.map(\.reason).joined(separator: "; ")
                + ". Was it rotated, replaced or truncated? Give the file the job read before the new one (mappings stream --job \(job) \(stored.source ?? "-").1 \(stored.source ?? "-")), where the job finds its place by the file's identity, or add \(startOver)"
        )
    }

    /// The inputs where a job's stored place may be, most likely first: the file of the same
    /// identity (device and inode: the same file, perhaps renamed), the file of the same name,
    /// then, when the place has a checksum, every other regular file (a copy, as logrotate's
    /// copytruncate leaves).
    private func candidates(for stored: RecordPosition, in sources: [(name: String?, descriptor: Int32)]) -> [Int] {
        var order: [Int] = []
        if let identity = stored.identity {
            order += sources.indices.filter { Self.isFile(sources[$0].descriptor, identity) }
        }
        order += sources.indices.filter { sources[$0].name == stored.source && !order.contains($0) }
        if stored.identity != nil {
            order += sources.indices.filter { !order.contains($0) && sources[$0].name != nil }
        }
        return order
    }
}

extension StreamCommand {
    /// Whether the file open at `descriptor` is the one `identity` names (its device and inode).
    static func isFile(_ descriptor: Int32, _ identity: InputIdentity) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && UInt64(status.st_dev) == identity.device
            && UInt64(status.st_ino) == identity.inode
    }
}

/// What the inputs of a `--job` run are to the job (`--job-input`).
enum JobInput: String, ExpressibleByArgument, CaseIterable {
    /// New inputs: mapped from their first line, the job's place where they go.
    case new
    /// The first input goes on from where the job stopped (standard input that continues the
    /// last run's): nothing of it skipped, its lines numbered on.
    case `continue`
}
