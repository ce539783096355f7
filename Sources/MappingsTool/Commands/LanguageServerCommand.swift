import ArgumentParser
import Mappings
import MappingsStream
import MappingsWorkspace

/// `mappings lsp`: the language server editors start.
struct LanguageServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lsp",
        abstract: "Serve the Language Server Protocol on stdin and stdout, for editors.",
        discussion: """
            Started by an editor, not by hand (docs/editors.md sets up Neovim, VS Code, Helix and \
            Emacs). Checks the workspace as 'mappings check' does, with the editor's unsaved texts, \
            and publishes every diagnostic as it is typed; answers hover, completion, go to \
            definition, references, rename, document symbols and formatting ('mappings fmt'). The \
            contexts are the workspace folder's contexts/ and its scripts scripts/, unless --mappings \
            and --scripts say otherwise; a file opened outside them is checked with what it imports.

            Exit status: 0 after the editor's shutdown and exit; 1 when the editor exits or closes \
            the stream without a shutdown.

            Examples:
              mappings lsp
              mappings lsp --mappings Examples/twitter --scripts scripts
            """
    )

    @OptionGroup var load: LoadOptions

    @Option(
        help: ArgumentHelp(
            "How long the editor must be quiet, in milliseconds, before the workspace is checked again.",
            valueName: "ms"))
    var debounce = 200

    func validate() throws {
        guard debounce >= 0, debounce <= 60_000 else { throw ValidationError("--debounce takes 0 to 60000") }
    }

    func run() throws {
        let server = LanguageServer(
            connection: LSPConnection(),
            configuration: LanguageServer.Configuration(
                mappings: load.paths, scripts: load.scripts, traits: load.traits, limits: load.lua.limits),
            debounce: Double(debounce) / 1000)
        let status = server.run()
        if status != 0 { throw ToolFailure(status: .issues) }
    }
}
