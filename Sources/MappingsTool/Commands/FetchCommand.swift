#if !MAPPINGS_PORTABLE
    package import ArgumentParser
    package import Foundation
    package import Mappings
    import MappingsStream

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// `mappings fetch`: GET (or POST to) a URL and map the JSON it answers.
    ///
    /// HTTP is FoundationNetworking's, whose libraries (libcurl and some thirty more) every other
    /// command would load at start-up for nothing: the fetching is in a program of its own,
    /// `mappings-fetch`, installed beside `mappings`. There `runner` is set and the command runs;
    /// here, `fetch` runs that program with the same arguments.
    package struct FetchCommand: AsyncParsableCommand, LoadingCommand {
        package static let configuration = CommandConfiguration(
            commandName: "fetch",
            abstract: "Fetch JSON from a URL and map it with a context.",
            discussion: """
                Sends the request (GET, or POST with --data), checks that the status is 2xx and the \
                content type JSON, parses the body, takes the part at --items (the whole body by \
                default), maps it like 'mappings map', and writes the object as one line of JSON.

                Exit status: 0 mapped with no issue; 1 mapped with issues; 2 the contexts or \
                arguments could not be loaded, or the fetch failed (connection, HTTP status, content \
                type, invalid JSON, nothing at --items): one line on stderr says which.

                Examples, against 'tools/test-server.py Examples/twitter', which prints its \
                port (8080 here):
                  mappings fetch http://127.0.0.1:8080/files/tweet.json \\
                    --context '$TweetModel'
                  mappings fetch http://127.0.0.1:8080/files/timeline.json --param count=2 \\
                    --many --context '$TweetModel'
                """
        )

        package init() {}

        @OptionGroup var load: LoadOptions

        @Argument(help: ArgumentHelp("The URL to fetch, without the parameters.", valueName: "url"))
        var url: String

        @Option(
            help: ArgumentHelp(
                "The identifier of the context to map with, such as '$TweetModel'; without it, the one context the files hold.",
                valueName: "id"),
            completion: Completions.contexts)
        var context: String?

        @Option(
            help: ArgumentHelp(
                "Map the value at this key path of the answer, such as 'data.items'.", valueName: "keypath"))
        var items: String?

        @Flag(help: "Map a JSON array into an array of objects, one per element.")
        var many = false

        @Option(
            name: .customLong("param"),
            help: ArgumentHelp(
                "A query parameter, added to the URL percent-encoded (repeatable).", valueName: "name=value")
        )
        var parameters: [String] = []

        @Option(
            name: .customLong("header"), help: ArgumentHelp("A request header (repeatable).", valueName: "name:value"))
        var headers: [String] = []

        @Option(help: ArgumentHelp("POST this JSON body; @FILE reads it from a file.", valueName: "json"))
        var data: String?

        @Option(
            parsing: .unconditional, help: ArgumentHelp("Seconds before the request gives up.", valueName: "seconds"))
        var timeout: Double = 30

        @OptionGroup var report: ReportOption

        @OptionGroup var nulls: NullsOption

        package func validate() throws {
            guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
                ["http", "https"].contains(scheme)
            else {
                throw ValidationError("\"\(url)\" is not an http or https URL")
            }
            for parameter in parameters where !parameter.contains("=") {
                throw ValidationError("--param takes name=value, not \"\(parameter)\"")
            }
            for header in headers where !header.contains(":") {
                throw ValidationError("--header takes name:value, not \"\(header)\"")
            }
            if !(timeout > 0) {
                let given = timeout.rounded() == timeout && abs(timeout) < 1e15 ? String(Int(timeout)) : String(timeout)
                throw ValidationError("--timeout must be a positive number of seconds, not \(given)")
            }
        }

        /// What one fetch asks, for `runner`.
        package struct Plan: Sendable {
            package var url: URL
            package var timeout: Double
            package var parameters: [(name: String, value: String)]
            package var headers: [(name: String, value: String)]
            package var body: Data?
            package var context: String
            /// The key path of the part of the answer to map (`--items`), or `nil` for the whole.
            package var items: String?
            package var many: Bool
            package var mapper: Mapper
        }

        /// Fetches and maps a plan: set by `mappings-fetch`, which links the HTTP client; throws
        /// `FetchFailure` with the one line to print when the fetch fails.
        package nonisolated(unsafe) static var runner: (@Sendable (Plan) async throws -> MappingResult)?

        /// Why a fetch failed, as one line.
        package struct FetchFailure: Error {
            package var message: String
            package init(_ message: String) { self.message = message }
        }

        package func run() async throws {
            guard let runner = Self.runner else { Self.runFetchProgram() }
            let catalog = try load.loadCatalog()
            let context = try LoadOptions.contextIdentifier(self.context, in: catalog)
            let mapper = Mapper(catalog: catalog)
            _ = try LoadOptions.context(context, of: mapper)
            var plan = Plan(
                url: URL(string: url)!, timeout: timeout, parameters: [], headers: [], body: nil, context: context,
                items: items, many: many, mapper: mapper)
            plan.parameters = parameters.map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), String(parts[1]))
            }
            plan.headers = headers.map { pair in
                let parts = pair.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                return (
                    String(parts[0]).trimmingCharacters(in: .whitespaces),
                    String(parts[1]).trimmingCharacters(in: .whitespaces)
                )
            }
            if let data {
                let bytes =
                    data.hasPrefix("@")
                    ? try PayloadInput.bytes(String(data.dropFirst()), what: "--data") : Array(data.utf8)
                do {
                    _ = try JSONParser.parse(bytes)
                } catch {
                    throw PayloadInput.invalid(
                        error, path: data.hasPrefix("@") ? String(data.dropFirst()) : nil, what: "--data",
                        inline: "--data")
                }
                plan.body = Data(bytes)
            }
            let result: MappingResult
            do {
                result = try await runner(plan)
            } catch let failure as FetchFailure {
                Terminal.error("error: \(failure.message)")
                throw ToolFailure(status: .loadFailure)
            }
            try ResultOutput.emit(result, report: report.path, omitNulls: nulls.omit)
        }

        /// Replaces this process with `mappings-fetch`: `mappings fetch ARGUMENTS` runs
        /// `mappings-fetch ARGUMENTS`.
        static func runFetchProgram() -> Never {
            let given = CommandLine.arguments.dropFirst()
            CompanionProgram.replaceProcess(
                with: "mappings-fetch",
                arguments: Array(given.firstIndex(of: "fetch").map { given[($0 + 1)...] } ?? given),
                for: "fetch")
        }
    }
#endif
