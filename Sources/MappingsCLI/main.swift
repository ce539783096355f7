// `mappings`: the tool. Its commands are MappingsTool's; this program links no HTTP client
// (`fetch` runs `mappings-fetch`).
import MappingsTool

MappingsCommand.main()
