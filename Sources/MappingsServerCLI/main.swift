// `mappings-server`: the commands that run an HTTP server — `serve`, `playground`, and `stream
// --metrics-listen` — with Hummingbird and SwiftNIO linked, in a program of its own so that no
// other command loads them and a first build of `mappings` does not compile them. `mappings serve …`
// runs it with the same arguments; run alone, `mappings-server ARGUMENTS` is `mappings ARGUMENTS`.
import Mappings
import MappingsServer
import MappingsTool

extension ServePlan: ServeSettings {}

ServerHooks.serve = { plan in try await Servers.serve(plan, say: ToolOutput.error) }
ServerHooks.playground = { plan in
    try await Servers.playground(plan.session, host: plan.host, port: plan.port, say: ToolOutput.error)
}
ServerHooks.metricsEndpoint = { host, port, context, board in
    try Servers.startMetricsEndpoint(host: host, port: port, context: context, board: board, say: ToolOutput.error)
}
MappingsCommand.main()
