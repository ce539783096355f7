import Foundation
import Mappings
import MappingsLua
import MappingsSpark

/// Writing what the lanes made of a block, in input order: its output in one piece, its events
/// (log lines, warnings, issues, rejects) by the issue policy.
extension StreamRun {
    /// Writes a finished (or abandoned) block's published records. Returns, when
    /// `--on-issue fail` stops at one of them, that record's line within the block and where
    /// the line after it starts; the output before it is written, nothing after.
    mutating func write(_ state: BlockResult.State, at position: Position) -> (line: Int, next: Int)? {
        var outputEnd = state.output.count
        var failed: (line: Int, next: Int)?
        // With `--spark-frames`: the block's output written so far, frames of the records
        // without output going out between the records' frames, in input order.
        var framed = 0
        for event in state.events {
            let line = position.linesBefore + event.line
            scriptLog.write(captured: event.log, record: line)
            let outcome = event.outcome
            if framesRecords, !event.written, event.outputStart > framed {
                output.write(state.output, range: framed..<event.outputStart)
                framed = event.outputStart
            }
            switch outcome.kind {
            case .clean:
                break
            case .filtered:
                counts.filtered += 1
                if framesRecords { output.write(SparkFrame.bytes(.filtered, [])) }
            case .withWarnings:
                for warning in outcome.issues {
                    stats.count(issue: warning.kind.rawValue)
                    Terminal.error("\(place(position.file, line)): \(warning)")
                }
                stats.withWarnings += 1
                stats.warnings += outcome.issues.count
            case .withErrors:
                for issue in outcome.issues { stats.count(issue: issue.kind.rawValue) }
                if event.written {
                    counts.withIssues += 1
                    stats.warnings += outcome.issues.count
                    for issue in outcome.issues { Terminal.error("\(place(position.file, line)): \(issue)") }
                    continue
                }
                reject(state.block, event.range, at: position, line: line, issues: outcome.issues)
                if policy == .fail {
                    for issue in outcome.issues { Terminal.error("\(place(position.file, line)): \(issue)") }
                    failed = (event.line, state.block.start(after: event.range))
                }
            case .invalid:
                counts.invalid += 1
                stats.count(issue: MappingIssue.Kind.invalidJSON.rawValue)
                let issues = outcome.rejectIssues(context: records.context)
                reject(state.block, event.range, at: position, line: line, issues: issues)
                if policy == .fail {
                    Terminal.error("\(place(position.file, line)): \(outcome.invalidReason ?? "not JSON")")
                    failed = (event.line, state.block.start(after: event.range))
                }
            }
            if let failed {
                stopReason = .failure
                outputEnd = event.outputStart
                // The records up to the failing one were read, and written or rejected.
                countRecords(of: state, after: position.linesWritten, through: failed.line)
                break
            }
        }
        if let sink {
            sink.add(state.output[framed..<max(framed, outputEnd)])
        } else if outputEncoder != nil {
            encodeOutput(state.output, range: framed..<max(framed, outputEnd))
        } else {
            output.write(state.output, range: framed..<max(framed, outputEnd))
            // Each block's lines go out now: a slow or interactive input sees its records come back.
            output.flush()
        }
        rejects.flush()
        if failed == nil {
            counts.read += state.records
            counts.written += state.records - state.events.filter { !$0.written }.count
            stats.planned += state.planned
        }
        stats.latency.merge(state.latency)
        stats.mappingNanoseconds += state.cpuNanoseconds
        return failed
    }

    /// Counts the records of a block after the lines already written and up to line `line`
    /// (the failing record included) as read, and the written ones among them, when
    /// `--on-issue fail` stopped there.
    private mutating func countRecords(of state: BlockResult.State, after written: Int, through line: Int) {
        var records = 0
        var lineNumber = 0
        state.block.forEachLine { range, _ in
            lineNumber += 1
            guard lineNumber <= line else { return false }
            if lineNumber > written, !state.block.isBlank(range) { records += 1 }
            return true
        }
        let notWritten = state.events.filter { $0.line <= line && !$0.written }.count
        counts.filtered += state.events.filter { $0.line <= line && $0.outcome.kind == .filtered }.count
        counts.read += records
        counts.written += records - notWritten
        stats.planned += min(state.planned, records - notWritten)
    }

    /// A line over the limit, which the reader skipped: rejected with its first bytes.
    mutating func rejectTooLong(_ head: [UInt8], at position: Position) {
        counts.read += 1
        counts.invalid += 1
        stats.count(issue: MappingIssue.Kind.lineTooLong.rawValue)
        let message = "the line is longer than \(LineReader.maximumLine) bytes"
        let issue = MappingIssue(record: .lineTooLong, message: message, context: records.context)
        writeReject(file: position.file, line: position.linesBefore, input: head, issues: [issue])
        if policy == .fail {
            Terminal.error("\(place(position.file, position.linesBefore)): \(message)")
            stopReason = .failure
        }
    }

    /// A record the reader rejected itself — a line over the limit, a record its format could not
    /// read — rejected in its turn, `position` moved past its lines; whether `item` was one.
    mutating func rejectUnmapped(_ item: Pending, at position: inout Position) -> Bool {
        switch item {
        case .tooLong(let head, _):
            position.linesBefore += 1
            rejectTooLong(head, at: position)
        case .unreadable(let reject):
            rejectUnreadable(reject, at: position)
            position.linesBefore += reject.lines
        case .block:
            return false
        }
        return true
    }

    /// A record the input's format could not read, on the line after `position`'s.
    private mutating func rejectUnreadable(_ reject: FormatReject, at position: Position) {
        counts.read += 1
        counts.invalid += 1
        stats.count(issue: MappingIssue.Kind.unreadableRecord.rawValue)
        let issue = MappingIssue(record: .unreadableRecord, message: reject.issueMessage, context: records.context)
        let line = position.linesBefore + 1
        writeReject(file: position.file, line: line, input: reject.input, issues: [issue])
        if policy == .fail {
            Terminal.error("\(place(position.file, line)): \(reject.issueMessage)")
            stopReason = .failure
        }
    }

    /// Writes the reject of a record of `block` (its line's bytes) with its issues.
    mutating func reject(
        _ block: RecordBlock, _ range: Range<Int>, at position: Position, line: Int, issues: [MappingIssue]
    ) {
        writeReject(file: position.file, line: line, input: Array(block.bytes[range]), issues: issues)
    }

    /// One line of the rejects: where the record is, its text, its issues.
    mutating func writeReject(file: String?, line: Int, input: [UInt8], issues found: [MappingIssue]) {
        if let sink {
            guard sink.takesRejects else {
                sink.rejectedElsewhere()
                return writeRejectElsewhere(file: file, line: line, input: input, issues: found)
            }
            counts.rejected += 1
            sink.reject(source: file, line: line, input: input, issues: found)
            return
        }
        writeRejectElsewhere(file: file, line: line, input: input, issues: found)
    }

    /// The reject's line where `--rejects` (or the terminal, or the Spark frames) takes it.
    private mutating func writeRejectElsewhere(file: String?, line: Int, input: [UInt8], issues found: [MappingIssue]) {
        let issues = found.map(\.json)
        if framesRecords {
            counts.rejected += 1
            let reject: JSONValue = [
                "line": .integer(Int64(line)), "input": .string(String(decoding: input, as: UTF8.self)),
                "issues": .array(issues),
            ]
            output.write(SparkFrame.bytes(.reject, Array(JSONWriter.string(reject).utf8)))
            return
        }
        if rejectsSummarized {
            counts.rejected += 1
            rejects.line(Self.summary(of: issues, at: place(file, line)))
            if !rejectsHinted {
                rejectsHinted = true
                rejects.line(
                    "mappings stream: each rejected record is one line here; --rejects FILE keeps the record and all its issues, one JSON line each"
                )
            }
            return
        }
        var members: [(key: String, value: JSONValue)] = []
        if let file { members.append(("file", .string(file))) }
        members.append(("line", .integer(Int64(line))))
        members.append(("input", .string(String(decoding: input, as: UTF8.self))))
        members.append(("issues", .array(issues)))
        // Invisible characters escaped: the same value to a JSON reader, and safe on a terminal.
        rejects.line(JSONWriter.safeText(.object(JSONObject(members))))
        counts.rejected += 1
    }

    /// The kinds of issue a whole record has rather than a value in it.
    static let recordKinds: Set<String> = [
        MappingIssue.Kind.invalidJSON.rawValue, MappingIssue.Kind.lineTooLong.rawValue,
        MappingIssue.Kind.interrupted.rawValue, MappingIssue.Kind.unreadableRecord.rawValue,
    ]

    /// One line for a rejected record on the terminal: `in.ndjson:3: rejected: $.id: expected
    /// Int, found string "x" (contexts/r.mappings:2)`, and how many issues more it has.
    static func summary(of issues: [JSONValue], at place: String) -> String {
        guard case .object(let first)? = issues.first else { return "\(place): rejected" }
        func text(_ key: String) -> String? {
            if case .string(let value)? = first[key] { return value }
            return nil
        }
        var line = "\(place): rejected: "
        // An issue of the whole record (not JSON, too long, interrupted) says its kind, not `$` and the context's rule.
        let recordLevel = text("kind").map(Self.recordKinds.contains) ?? false
        if !recordLevel, let path = text("path") {
            line += path + ": "
        } else if let kind = text("kind") {
            line += kind + ": "
        }
        line += text("message") ?? text("kind") ?? "an issue"
        if !recordLevel, let rule = text("rule") { line += " (\(rule))" }
        if issues.count > 1 { line += " (and \(issues.count - 1) more)" }
        return JSONWriter.visible(line)
    }

    /// `file:line`, `<stdin>:line` for standard input.
    func place(_ file: String?, _ line: Int) -> String {
        "\(file ?? "<stdin>"):\(line)"
    }

    /// Between blocks: picks up a reload that is due, swapping the version the next blocks map
    /// with; logs every swap and refusal on stderr with its version.
    mutating func reloadIfAsked(_ stop: StopSignal) {
        guard var reloads else { return }
        let change = reloads.look(stop)
        self.reloads = reloads
        let serving = reloads.reloader.current.number
        switch change {
        case .none:
            break
        case .swapped(let version):
            guard let compiled = version.catalog.context(context) else {
                stats.warnings += 1
                stats.log(
                    Stats.Reload(
                        time: Date(), version: version.number, swapped: false, reason: "no context \"\(context)\""))
                board?.noteReload(swapped: false)
                Terminal.error(
                    "mappings stream: version \(version.number) has no context \"\(context)\"; still mapping with the previous one"
                )
                return
            }
            let mapper = Mapper(catalog: version.catalog).strictConversions(records.mapper.convertsStrictlyByDefault)
            records = RecordMapper(
                mapper: mapper, context: compiled, usesFastPlan: usesFastPlan, omittingNulls: omitNulls)
            stats.hasPlan = records.hasFastPlan
            stats.version = version.number
            stats.log(Stats.Reload(time: Date(), version: version.number, swapped: true, reason: nil))
            board?.noteReload(swapped: true)
            Terminal.error("mappings stream: now mapping with version \(version.number) (after record \(counts.read))")
            if showsLoadWarnings { Terminal.diagnostics(version.catalog.warnings, severity: "warning") }
        case .refused(let reason, let timedOut):
            stats.warnings += 1
            let firstLine = reason.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? reason
            stats.log(Stats.Reload(time: Date(), version: nil, swapped: false, reason: firstLine))
            board?.noteReload(swapped: false)
            // A timeout is said on the line; a refusal's diagnostics follow it.
            Terminal.error(
                "mappings stream: a reload was refused, still mapping with version \(serving):"
                    + (timedOut ? " " : "\n") + reason)
        }
    }

    /// Between blocks and while waiting for input: the progress line and the periodic stats,
    /// each when its interval has passed.
    mutating func tick() {
        board?.publish(counts, version: stats.version)
        let rate = Int((Double(counts.read) / max(stats.elapsed, 0.001)).rounded())
        let line = "\(summary), \(rate) records/s"
        progress.show(line)
        guard let path = progress.statsDue() else { return }
        do {
            try writeStats(to: path, running: true)
        } catch {
            stats.warnings += 1
            Terminal.error("mappings stream: cannot write the stats file \"\(path)\"")
        }
    }

    var summary: String {
        var text = "mappings stream: read \(counts.read), written \(counts.written), rejected \(counts.rejected)"
        if counts.filtered > 0 { text += ", filtered \(counts.filtered)" }
        if counts.unprocessed > 0 { text += ", not processed \(counts.unprocessed)" }
        if counts.withIssues > 0 { text += " (\(counts.withIssues) written with issues)" }
        if stats.withWarnings > 0 { text += " (\(stats.withWarnings) written with warnings)" }
        if counts.interrupted > 0 { text += " (\(counts.interrupted) rejected as interrupted)" }
        if let sink { text += ", committed \(sink.committedRecords)" }
        return text
    }

    /// `--to-format`: encodes the block's output lines and writes them; a record the format
    /// cannot write stops the stream there.
    mutating func encodeOutput(_ text: [UInt8], range: Range<Int>) {
        guard let outputEncoder, stopReason == nil else { return }
        if !outputEncoder.write(text, range: range, to: output), let failure = outputEncoder.failure {
            stopReason = .destination("--to-format \(outputEncoder.format) cannot write a record: \(failure.message)")
        }
        output.flush()
    }

    /// `--to-format`: what the output starts with (a CSV header), before the first record.
    package func startOutput() {
        outputEncoder?.start(to: output)
    }

    /// Prints the summary; `read == written + rejected + filtered + unprocessed` always holds.
    package mutating func finish() {
        outputEncoder?.finish(to: output)
        commitSink()
        board?.publish(counts, version: stats.version)
        if framesRecords {
            // The stats close the frames; the summary line would only be noise in a Spark task's log.
            output.write(SparkFrame.bytes(.stats, Array(JSONWriter.string(statsJSON(running: false)).utf8)))
            output.flush()
            return
        }
        output.flush()
        rejects.flush()
        var text = summary
        if let stopReason { text += ", stopped by \(stopReason)" }
        if let resume {
            text +=
                resumesByJob
                ? "; the job goes on from \(resume.argument) when started again"
                : "; resume with --resume-from \(resume.argument)"
        }
        FileHandle.standardError.write(Data(((progress.shown ? "\r" : "") + text + "\n").utf8))
    }
}

/// `--to`: handing the sink how far the input is handled, and its last commit.
extension StreamRun {
    /// Every record before `position` is added or rejected; a failure of the sink stops the stream.
    mutating func sinkReached(_ position: Resume) {
        guard let sink, sinkFailure == nil else { return }
        var position = identified(position)
        if decodedInput { position.offset = nil }
        sinkLast = position
        do {
            try sink.reached(position.record)
        } catch {
            stopOnSink(error)
        }
    }

    /// Commits what the sink holds, with where a next run starts: where this one stopped, or
    /// the end of what it read.
    mutating func commitSink() {
        guard let sink, sinkFailure == nil else { return }
        guard let last = resume ?? sinkLast else { return }
        let position = identified(last)
        do {
            try sink.finish(at: position.record)
        } catch {
            stopOnSink(error)
        }
    }

    private mutating func stopOnSink(_ failure: RecordSinkFailure) {
        sinkFailure = failure
        if stopReason == nil { stopReason = .destination(failure.message) }
        // What was not committed is read again by the next run: it resumes at the last commit.
        resume = sink?.committed.map(Resume.init)
    }
}
