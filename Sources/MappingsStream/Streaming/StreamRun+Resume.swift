import Foundation
package import Mappings

extension StreamRun {
    /// Where a stream that stopped early starts again: the first record it did not process
    /// (every record before it was written or rejected), as `--stats` and the summary give it
    /// and `--resume-from FILE:LINE` takes it.
    package struct Resume: Equatable {
        /// The input as given on the command line; `nil` for standard input (`-`).
        package var file: String?
        /// The line, 1-based, counting every line of the input (blank ones too).
        package var line: Int
        /// Where that line starts in the input, in bytes; `nil` when a stop came while a resumed
        /// run was still skipping standard input up to it.
        package var offset: Int?
        /// The checksum of the input's bytes before `offset` (`InputFingerprint`), when known.
        package var digest: String?
        /// The file's identity with that checksum, when a job keeps it (`RecordPosition.identity`).
        package var identity: InputIdentity?

        /// `FILE:LINE` for `--resume-from`, quoted for a shell when the name needs it.
        package var argument: String {
            let name = file ?? "-"
            let plain = name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || "-_./,+@%".unicodeScalars.contains($0)
            }
            let text = "\(name):\(line)"
            return plain ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }

        var json: JSONValue {
            var members: [(key: String, value: JSONValue)] = [
                ("file", .string(file ?? "-")), ("line", .integer(Int64(line))),
                ("offset", offset.map { .integer(Int64($0)) } ?? .null),
            ]
            if file != nil { members.append(("digest", digest.map { .string($0) } ?? .null)) }
            return .object(JSONObject(members))
        }

        /// Reads `FILE:LINE` (the last colon splits them); `nil` when it is not that.
        init?(argument: String) {
            guard let colon = argument.lastIndex(of: ":"), let line = Int(argument[argument.index(after: colon)...]),
                line >= 1, colon > argument.startIndex
            else { return nil }
            let name = String(argument[..<colon])
            self.init(file: name == "-" ? nil : name, line: line, offset: nil)
        }

        package init(file: String?, line: Int, offset: Int?, digest: String? = nil) {
            self.file = file
            self.line = line
            self.offset = offset
            self.digest = digest
        }

        /// A sink's position (`RecordSink.committed`), with its identity when it keeps one.
        package init(_ position: RecordPosition) {
            self.init(file: position.source, line: position.line, offset: position.offset)
            identity = position.identity
            digest = position.identity?.digest
        }

        /// The place as a sink keeps it.
        package var record: RecordPosition {
            RecordPosition(source: file, line: line, offset: offset, identity: identity)
        }
    }

    /// What `--resume-from` asks: a place, and, when it names the stats file of the stopped run,
    /// what that run recorded of its inputs (the place's offset and checksum, every input's size),
    /// for the run to check that the inputs are those it left.
    package struct ResumeRequest {
        package var place: Resume
        /// The stats file it was read from, or `nil` for `FILE:LINE`.
        package var statsFile: String?
        /// Each input's size when the run stopped (`--stats`'s `inputs`), by its name as given.
        package var sizes: [String: Int] = [:]
        /// What the request's refusals name, when not `--resume-from`'s argument (`--job NAME`).
        package var origin: String?

        /// Where the job `job` of `stream --to` stopped (its last committed position).
        package init(job: String, place: Resume) {
            self.init(place: place)
            origin = "--job \(job) (which stopped at \(place.argument))"
        }

        /// `FILE:LINE`, or the path of a stats file a stopped stream wrote; `inputs` are the
        /// stream's (`-` for standard input). Throws the message that says what is wrong.
        package init(_ argument: String, inputs: [String]) throws(Refusal) {
            if let place = Resume(argument: argument), inputs.contains(place.file ?? "-") {
                self.init(place: place)
                return
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), !isDirectory.boolValue
            else {
                if let place = Resume(argument: argument) {
                    throw Refusal(
                        "--resume-from names \"\(place.file ?? "-")\", which is not an input of this stream (\(inputs.map { "\"\($0)\"" }.joined(separator: ", ")))"
                    )
                }
                throw Refusal(
                    "--resume-from takes FILE:LINE (a line number from 1), or the --stats file of the stopped run, not \"\(argument)\""
                )
            }
            try self.init(statsFile: argument, inputs: inputs)
        }

        private init(statsFile path: String, inputs: [String]) throws(Refusal) {
            let text: [UInt8]
            do {
                text = try InputFile.bytes(path)
            } catch {
                throw Refusal("--resume-from cannot read \"\(path)\": \(error.reason)")
            }
            guard case .object(let stats)? = try? JSONValue(parsing: text), stats["running"] != nil,
                let resume = stats["resume"]
            else {
                throw Refusal(
                    "--resume-from \"\(path)\" is neither FILE:LINE nor the stats file of a stream (what --stats writes)"
                )
            }
            guard case .object(let place) = resume, case .string(let file)? = place["file"],
                case .integer(let line)? = place["line"], line >= 1
            else {
                throw Refusal(
                    "--resume-from \"\(path)\": the run it describes read its inputs to the end: there is nothing to resume"
                )
            }
            guard inputs.contains(file) else {
                throw Refusal(
                    "--resume-from \"\(path)\" names \"\(file)\", which is not an input of this stream (\(inputs.map { "\"\($0)\"" }.joined(separator: ", ")))"
                )
            }
            var offset: Int?
            if case .integer(let value)? = place["offset"] { offset = Int(value) }
            var digest: String?
            if case .string(let value)? = place["digest"] { digest = value }
            var sizes: [String: Int] = [:]
            if case .array(let recorded)? = stats["inputs"] {
                for input in recorded {
                    guard case .object(let input) = input, case .string(let name)? = input["file"],
                        case .integer(let size)? = input["size"]
                    else { continue }
                    sizes[name] = Int(size)
                }
            }
            self.init(
                place: Resume(file: file == "-" ? nil : file, line: Int(line), offset: offset, digest: digest),
                statsFile: path, sizes: sizes)
        }

        private init(place: Resume, statsFile: String? = nil, sizes: [String: Int] = [:]) {
            self.place = place
            self.statsFile = statsFile
            self.sizes = sizes
        }

        /// Why `--resume-from` is refused.
        package struct Refusal: Error {
            package var message: String
            init(_ message: String) { self.message = message }
        }
    }
}
