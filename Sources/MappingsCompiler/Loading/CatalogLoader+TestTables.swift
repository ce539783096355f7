import MappingsJSON

extension CatalogLoader {
    /// Reads the fixture tables the contexts' tests give (`"tables"`), each with the key and
    /// column types of the `@tables` declaration of its name, into the test
    /// (`ContextTest.tables`); a problem is a load error at the fixture or in its file.
    mutating func loadTestTables(
        in contexts: inout [CompiledContext], declarations: [String: TableDeclaration], from source: FileSource,
        texts: inout [String: String]
    ) {
        for context in contexts.indices {
            for test in contexts[context].tests.indices {
                for fixture in contexts[context].tests[test].tableFixtures {
                    guard var declaration = declarations[fixture.name] else { continue }
                    declaration.fileLocation = fixture.location
                    declaration.isHostFile = false
                    declaration.rows = fixture.rows
                    if let file = fixture.file {
                        guard let format = TableDeclaration.format(ofFile: file.written) else {
                            diagnostics.append(
                                Diagnostic(
                                    message:
                                        "cannot tell the format of the fixture \(PathText.quoted(file.written)) from its name",
                                    location: fixture.location,
                                    help: "name it .csv, .jsonl, .ndjson, .db, .sqlite or .sqlite3"))
                            continue
                        }
                        (declaration.file, declaration.path, declaration.format) = (file.written, file.path, format)
                    } else {
                        (declaration.file, declaration.path) = ("<test>", "<test>")
                    }
                    if let table = readTable(declaration, from: source, texts: &texts) {
                        contexts[context].tests[test].tables[fixture.name] = table
                    }
                }
            }
        }
    }
}
