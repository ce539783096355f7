#if !MAPPINGS_PORTABLE
    import ArgumentParser
    import Foundation
    import Mappings
    import MappingsFetch

    /// `mappings fetch`: GET (or POST to) a URL and map the JSON it answers.
    struct FetchCommand: AsyncParsableCommand, LoadingCommand {
        static let configuration = CommandConfiguration(
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

        @OptionGroup var load: LoadOptions

        @Argument(help: ArgumentHelp("The URL to fetch, without the parameters.", valueName: "url"))
        var url: String

        @Option(
            help: ArgumentHelp("The identifier of the context to map with, such as '$TweetModel'.", valueName: "id"),
            completion: Completions.contexts)
        var context: String

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

        func validate() throws {
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

        func run() async throws {
            let mapper = Mapper(catalog: try load.loadCatalog())
            _ = try LoadOptions.context(context, of: mapper)
            var request = FetchRequest(url: URL(string: url)!, timeout: timeout)
            request.parameters = parameters.map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), String(parts[1]))
            }
            request.headers = headers.map { pair in
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
                request.body = Data(bytes)
            }
            let fetcher = Fetcher(mapper: mapper)
            let select: Selection = items.map { .keyPath($0) } ?? .whole
            let result: MappingResult
            do throws(FetchError) {
                result =
                    many
                    ? try await fetcher.objects(request, context: context, select: select)
                    : try await fetcher.object(request, context: context, select: select)
            } catch {
                Terminal.error("error: \(error)")
                throw ToolFailure(status: .loadFailure)
            }
            try ResultOutput.emit(result, report: report.path, omitNulls: nulls.omit)
        }
    }
#endif
