import MappingsJSON
import MappingsModel

extension ContextCompiler {
    /// A test's `"tables"`: an object of table names (each one `@tables` declares) to a fixture
    /// file, relative to the `.mappings` file (`"fixtures/countries.csv"`), or to an array of
    /// rows (objects); `nil` after reporting a problem. The loader reads them
    /// (`CatalogLoader.loadTestTables`).
    mutating func compileTableFixtures(_ node: SyntaxNode) -> [ContextTest.TableFixture]? {
        guard let members = node.members else {
            diagnostics.append(
                Diagnostic(
                    message: "\"tables\" is an object of table names to a fixture file or rows, not \(node.typeName)",
                    location: node.location, help: "write \"tables\": { \"countries\": \"fixtures/countries.csv\" }"))
            return nil
        }
        var fixtures: [ContextTest.TableFixture] = []
        for member in members {
            guard tables[member.key] != nil else {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the test gives the table \(PathText.quoted(member.key)), which \"@tables\" does not declare",
                        location: member.keyLocation,
                        help: Suggestion.help(for: member.key, among: Array(tables.keys))
                            ?? "a test replaces the rows of a table \"@tables\" declares"))
                return nil
            }
            var fixture = ContextTest.TableFixture(name: member.key, location: member.value.location)
            switch member.value.kind {
            case .string(let file) where !file.isEmpty:
                fixture.file = (file, Path.join(Path.directory(of: member.value.location.file), file))
            case .array:
                guard case .array(let rows) = member.value.jsonValue else { return nil }
                fixture.rows = rows
            default:
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the table \(member.key) of a test is a fixture file (a path) or an array of rows, not \(member.value.typeName)",
                        location: member.value.location,
                        help: "write \"\(member.key)\": \"fixtures/\(member.key).csv\", or [ { \"code\": \"FR\", … } ]")
                )
                return nil
            }
            fixtures.append(fixture)
        }
        return fixtures
    }
}
