// `mappings-fetch`: `mappings fetch`, the one command that needs an HTTP client (FoundationNetworking
// and libcurl), in a program of its own so that no other command loads them. `mappings fetch …`
// runs it with the same arguments; run alone, `mappings-fetch ARGUMENTS` is `mappings fetch ARGUMENTS`.
import Foundation
import Mappings
import MappingsFetch
import MappingsTool

FetchCommand.runner = { plan in
    var request = FetchRequest(url: plan.url, timeout: plan.timeout)
    request.parameters = plan.parameters.map { ($0.name, $0.value) }
    request.headers = plan.headers.map { ($0.name, $0.value) }
    request.body = plan.body
    let fetcher = Fetcher(mapper: plan.mapper)
    let select: Selection = plan.items.map { .keyPath($0) } ?? .whole
    do throws(FetchError) {
        return plan.many
            ? try await fetcher.objects(request, context: plan.context, select: select)
            : try await fetcher.object(request, context: plan.context, select: select)
    } catch {
        throw FetchCommand.FetchFailure("\(error)")
    }
}
MappingsCommand.main(["fetch"] + CommandLine.arguments.dropFirst())
