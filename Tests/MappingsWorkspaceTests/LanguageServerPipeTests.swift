import Dispatch
import Foundation
import Mappings
import MappingsLua
import MappingsTestSupport
import MappingsWorkspace
import Synchronization
import Testing

/// The language server in this process, spoken to over a pair of pipes as an editor does:
/// framed JSON-RPC, `initialize`, a document opened with an error, its diagnostics published
/// at the place, fixed, then `shutdown` and `exit`. (integrations/editors drives the program
/// with pytest-lsp and a headless Neovim.)
@Suite("The language server over a pipe, in process")
struct LanguageServerPipeTests {
    /// The editor's side: writes requests and reads what the server sends, frame by frame.
    final class Editor {
        let toServer = Pipe()
        let fromServer = Pipe()
        private var buffer = Data()
        private var nextID = 1

        func send(_ message: [String: Any]) throws {
            var message = message
            message["jsonrpc"] = "2.0"
            let body = try JSONSerialization.data(withJSONObject: message)
            toServer.fileHandleForWriting.write(Data("Content-Length: \(body.count)\r\n\r\n".utf8) + body)
        }

        /// Sends a request and returns its response, keeping the notifications that came before.
        func request(_ method: String, _ params: [String: Any]) throws -> [String: Any] {
            let id = nextID
            nextID += 1
            try send(["id": id, "method": method, "params": params])
            while true {
                let message = try read()
                if message["id"] as? Int == id, message["method"] == nil { return message }
            }
        }

        /// The next message the server sends.
        func read() throws -> [String: Any] {
            while true {
                if let end = buffer.range(of: Data("\r\n\r\n".utf8)) {
                    let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                    let length =
                        head.split(separator: "\r\n").compactMap { line -> Int? in
                            let parts = line.split(separator: ":", maxSplits: 1)
                            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                            return Int(parts[1].trimmingCharacters(in: .whitespaces))
                        }.first ?? 0
                    if buffer.count - end.upperBound >= length {
                        let body = buffer[end.upperBound..<(end.upperBound + length)]
                        buffer = Data(buffer[(end.upperBound + length)...])
                        return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
                    }
                }
                let chunk = fromServer.fileHandleForReading.availableData
                guard !chunk.isEmpty else { throw EditorFailure() }
                buffer += chunk
            }
        }

        /// Reads until the server publishes diagnostics for `uri`, and returns them.
        func diagnostics(for uri: String) throws -> [[String: Any]] {
            while true {
                let message = try read()
                guard message["method"] as? String == "textDocument/publishDiagnostics",
                    let params = message["params"] as? [String: Any], params["uri"] as? String == uri
                else { continue }
                return params["diagnostics"] as? [[String: Any]] ?? []
            }
        }
    }

    struct EditorFailure: Error {}

    /// The server's exit status, once its thread is done.
    final class Outcome: Sendable {
        let status = Mutex<Int32?>(nil)
        let stopped = DispatchSemaphore(value: 0)
    }

    @Test("initialize, an error published where it is as it is typed, fixed, shutdown and exit 0")
    func session() throws {
        let good = #"{ "@models": { "User": { "name": "String" } }, "$User": { "@class": "User", "name": "name" } }"#
        let directory = try Fixtures.directory(with: ["contexts/users.mappings": good]).resolvingSymlinksInPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let editor = Editor()
        // On a thread of its own, as in `mappings lsp`: not on the concurrency pool, which the
        // suite's tests that wait for processes may hold.
        let outcome = Outcome()
        let input = editor.toServer.fileHandleForReading.fileDescriptor
        let output = editor.fromServer.fileHandleForWriting.fileDescriptor
        let roots = [directory.appendingPathComponent("contexts").path]
        let thread = Thread {
            let server = LanguageServer(
                connection: LSPConnection(input: input, output: output),
                configuration: LanguageServer.Configuration(
                    mappings: roots, scripts: nil, traits: Traits(), limits: LuaLimits()),
                debounce: 0)
            outcome.status.withLock { $0 = server.run() }
            outcome.stopped.signal()
        }
        thread.start()

        let initialized = try editor.request(
            "initialize", ["processId": NSNull(), "rootUri": directory.absoluteString, "capabilities": [:]])
        let capabilities = (initialized["result"] as? [String: Any])?["capabilities"] as? [String: Any]
        #expect(capabilities?["hoverProvider"] != nil, "\(initialized)")
        try editor.send(["method": "initialized", "params": [:]])

        let file = directory.appendingPathComponent("contexts/users.mappings")
        let uri = file.absoluteString
        let broken = good.replacingOccurrences(of: #""name": "name""#, with: #""nmae": "name""#)
        try editor.send([
            "method": "textDocument/didOpen",
            "params": ["textDocument": ["uri": uri, "languageId": "mappings", "version": 1, "text": broken]],
        ])
        let published = try editor.diagnostics(for: uri)
        let first = try #require(published.first)
        #expect((first["message"] as? String)?.contains("nmae") == true, "\(published)")
        let start = (first["range"] as? [String: Any])?["start"] as? [String: Any]
        let column = broken.distance(from: broken.startIndex, to: broken.range(of: #""nmae""#)!.lowerBound)
        #expect(start?["line"] as? Int == 0 && start?["character"] as? Int == column, "\(first)")

        try editor.send([
            "method": "textDocument/didChange",
            "params": [
                "textDocument": ["uri": uri, "version": 2], "contentChanges": [["text": good]],
            ],
        ])
        #expect(try editor.diagnostics(for: uri).isEmpty)

        let shutdown = try editor.request("shutdown", [:])
        #expect(shutdown["error"] == nil)
        try editor.send(["method": "exit"])
        #expect(outcome.stopped.wait(timeout: .now() + 30) == .success)
        #expect(outcome.status.withLock { $0 } == 0)
    }
}
