import Foundation
package import Mappings
import MappingsLua

extension StreamRun {
    /// What `--stats` reports besides the counts: issues by kind, warnings, the version
    /// serving and the reloads, and how long records took to map.
    struct Stats {
        /// Issues of the records rejected or written with issues, by kind (`"invalid JSON"`,
        /// `"missing required value"`, `"interrupted"`…).
        var issueKinds: [String: Int] = [:]
        /// Messages on stderr about things that did not stop the stream: each issue of a
        /// record written with `--on-issue emit`, each warning of a record written, each
        /// refused reload.
        var warnings = 0
        /// Records written whose only issues are warnings, a part of `written`.
        var withWarnings = 0
        /// The version serving (1, then one more per swap with `--watch`).
        var version = 1
        /// Whether the version serving has a fast plan (and `--general-engine` is not given).
        var hasPlan = false
        /// The records the fast plan wrote (the others went through the general engine).
        var planned = 0
        /// Every reload that swapped or was refused, oldest first (the last `reloadsKept`).
        var reloads: [Reload] = []
        var latency = LatencyHistogram()
        /// The CPU time lanes spent mapping the blocks written so far, in nanoseconds.
        var mappingNanoseconds = 0
        let started = ContinuousClock.now

        static let reloadsKept = 100

        struct Reload {
            var time: Date
            /// The version swapped in; `nil` for a refusal (which takes no number).
            var version: Int?
            var swapped: Bool
            /// Why it was refused: the first line of the reason.
            var reason: String?
        }

        mutating func count(issue kind: String) {
            issueKinds[kind, default: 0] += 1
        }

        mutating func log(_ reload: Reload) {
            reloads.append(reload)
            if reloads.count > Self.reloadsKept { reloads.removeFirst(reloads.count - Self.reloadsKept) }
        }

        /// Seconds since the stream started.
        var elapsed: Double {
            let (seconds, attoseconds) = (ContinuousClock.now - started).components
            return Double(seconds) + Double(attoseconds) / 1e18
        }

        /// Nanoseconds as seconds, to the microsecond.
        private static func seconds(_ nanoseconds: Int) -> JSONValue {
            .double(Double(nanoseconds / 1000) / 1e6)
        }

        /// The members `--stats` adds to the counts.
        func members(context: String, logLinesDropped: Int) -> [(key: String, value: JSONValue)] {
            let formatter = ISO8601DateFormatter()
            let kinds = issueKinds.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.integer(Int64($0.value))) }
            let reloads = self.reloads.map { reload -> JSONValue in
                var fields: [(key: String, value: JSONValue)] = [("time", .string(formatter.string(from: reload.time)))]
                if let version = reload.version { fields.append(("version", .integer(Int64(version)))) }
                fields.append(("outcome", .string(reload.swapped ? "swapped" : "refused")))
                if let reason = reload.reason { fields.append(("reason", .string(reason))) }
                return .object(JSONObject(fields))
            }
            let microseconds = { (fraction: Double) -> JSONValue in
                latency.percentile(fraction).map { .integer(Int64(($0 + 999) / 1000)) } ?? .null
            }
            let elapsed = self.elapsed
            return [
                ("issues", .object(JSONObject(kinds))),
                ("warnings", .integer(Int64(warnings))),
                ("withWarnings", .integer(Int64(withWarnings))),
                ("logLinesDropped", .integer(Int64(logLinesDropped))),
                (
                    "contexts",
                    .object(
                        JSONObject([
                            (
                                context,
                                .object(
                                    JSONObject([
                                        ("version", .integer(Int64(version))),
                                        ("plan", .string(hasPlan ? "fast" : "general")),
                                    ]))
                            )
                        ]))
                ),
                ("fastPlanRecords", .integer(Int64(planned))),
                ("reloads", .array(reloads)),
                (
                    "latency",
                    .object(
                        JSONObject([
                            ("records", .integer(Int64(latency.count))), ("p50Microseconds", microseconds(0.5)),
                            ("p99Microseconds", microseconds(0.99)),
                        ]))
                ),
                ("elapsedSeconds", .double((elapsed * 1000).rounded() / 1000)),
                (
                    "cpuSeconds",
                    .object(
                        JSONObject([
                            ("total", Self.seconds(ThreadClock.processCPUNanoseconds())),
                            ("mapping", Self.seconds(mappingNanoseconds)),
                        ]))
                ),
            ]
        }
    }

    /// The whole `--stats` document: the counts, whether the stream still runs (and, when it
    /// has ended, why), then `Stats.members`.
    func statsJSON(running: Bool) -> JSONValue {
        guard case .object(let counts) = counts.json(stopReason: stopReason) else { return .null }
        var members = counts.members.filter { !running || $0.key != "stopped" }
        // Where to start again, once a run has stopped: null when it read its input to the end.
        if !running {
            members.append(("resume", resume?.json ?? .null))
            let inputs = inputSizes.map { input -> JSONValue in
                .object(
                    JSONObject([
                        ("file", .string(input.file)), ("size", input.size.map { .integer(Int64($0)) } ?? .null),
                    ]))
            }
            members.append(("inputs", .array(inputs)))
        }
        members.append(("running", .bool(running)))
        return .object(
            JSONObject(members + stats.members(context: context, logLinesDropped: scriptLog.dropped)))
    }

    /// Writes the stats to `path` atomically (a temporary file beside it, renamed over it), so
    /// a reader never sees half a file; `running` while the stream goes on (`--stats-interval`).
    /// Throws when it cannot be written.
    package func writeStats(to path: String, running: Bool = false) throws(InputFile.Failure) {
        let bytes = Array((JSONWriter.string(statsJSON(running: running)) + "\n").utf8)
        let temporary = path + ".tmp-\(getpid())"
        try OutputFile.write(bytes, to: temporary)
        guard rename(temporary, path) == 0 else {
            let failure = InputFile.Failure(errno: errno)
            unlink(temporary)
            throw failure
        }
    }

    /// Records what a resumed run checks: each input's size now, and the checksum of the bytes
    /// before the place to resume from (read again from the file, once, at the stop).
    package mutating func fingerprint(_ sources: [(name: String?, descriptor: Int32)]) {
        inputSizes = sources.map { ($0.name ?? "-", InputFingerprint.size(of: $0.descriptor)) }
        guard let place = resume, let offset = place.offset, place.file != nil,
            let source = sources.first(where: { $0.name == place.file }),
            InputFingerprint.size(of: source.descriptor) != nil,
            let prefix = try? InputFingerprint.prefix(offset, of: source.descriptor), prefix.offset == offset
        else { return }
        resume?.digest = prefix.digest
    }
}
