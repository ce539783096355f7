import Foundation
import Mappings
import MappingsStream

/// Reads one JSON payload from a file or stdin, for the commands that map a single payload.
enum PayloadInput {
    /// The payload at `path` (stdin when `nil`); an unreadable file or invalid JSON is reported
    /// on stderr with the file's line and column, and ends the command with exit status 2.
    static func read(_ path: String?, what: String) throws -> JSONValue {
        let bytes = try bytes(path, what: what)
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw invalid(error, path: path, what: what)
        }
    }

    /// The bytes at `path` (stdin when `nil`); an unreadable file ends the command with exit status 2.
    static func bytes(_ path: String?, what: String) throws -> [UInt8] {
        do {
            return try InputFile.bytes(path)
        } catch {
            throw InputFile.unreadable(error, path: path, what: what)
        }
    }

    /// Reports invalid JSON with the file's line and column; the command ends with exit status 2.
    /// `inline` names JSON given without a file (stdin, or an option's value such as `--data`).
    static func invalid(
        _ error: JSONParser.Failure, path: String?, what: String, inline: String = "<stdin>"
    ) -> ToolFailure {
        Terminal.error(
            "error: \(what) is not valid JSON: \(error.message)\n --> \(path ?? inline):\(error.line):\(error.column)"
        )
        return ToolFailure(status: .loadFailure)
    }
}
