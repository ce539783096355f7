import Foundation
import Mappings

/// Reads one JSON payload from a file or stdin, for the commands that map a single payload.
enum PayloadInput {
    /// The payload at `path` (stdin when `nil`); an unreadable file or invalid JSON is reported
    /// on stderr with the file's line and column, and ends the command with exit status 2.
    static func read(_ path: String?, what: String) throws -> JSONValue {
        let name = path ?? "<stdin>"
        let bytes: Data
        do {
            bytes =
                try path.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
                ?? FileHandle.standardInput.readDataToEndOfFile()
        } catch {
            Terminal.error("error: cannot read \(what) \"\(name)\"")
            throw ToolFailure(status: .loadFailure)
        }
        do {
            return try JSONParser.parse(Array(bytes))
        } catch {
            Terminal.error(
                "error: \(what) is not valid JSON: \(error.message)\n --> \(name):\(error.line):\(error.column)")
            throw ToolFailure(status: .loadFailure)
        }
    }
}
