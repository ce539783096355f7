import MappingsJSON
import MappingsModel

extension TableDeclaration {
    /// The declaration of a table a host gives: over `declared` (the `@tables` declaration of
    /// that name, whose key and column types hold unless the host gives its own), else on its
    /// own, when it needs a key. `nil` after reporting a problem at the host's call.
    static func host(
        _ table: HostTable, over declared: TableDeclaration?, diagnostics: inout [Diagnostic]
    ) -> TableDeclaration? {
        let at = table.location
        guard isIdentifier(table.name) else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "a table's name is an identifier (letters, digits and _, not first a digit), not \(PathText.quoted(table.name))",
                    location: at))
            return nil
        }
        guard !table.key.isEmpty || declared != nil else {
            diagnostics.append(
                Diagnostic(
                    message: "the table \(table.name) needs a key: no .mappings file declares it in \"@tables\"",
                    location: at, help: "give key: [\"code\"], or declare the table in \"@tables\""))
            return nil
        }
        var declaration =
            declared
            ?? TableDeclaration(
                name: table.name, nameLocation: at, file: "", path: "", fileLocation: at, format: .jsonl, table: nil,
                key: [], keyLocation: at, columns: [])
        declaration.fileLocation = at
        if !table.key.isEmpty {
            declaration.key = table.key.map { (name: $0, location: at) }
            declaration.keyLocation = at
        }
        for (name, text) in table.columns {
            guard let type = try? TypeParser.parse(text), isCellType(type) else {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the column \(PathText.quoted(name)) of the table \(table.name) takes a scalar type (String, Int, Double, Bool, Decimal, URL, Date or UUID), not \(PathText.quoted(text))",
                        location: at))
                return nil
            }
            declaration.columns.removeAll { $0.name == name }
            declaration.columns.append((name, type.unwrapped, at))
        }
        switch table.source {
        case .rows(let rows):
            (declaration.file, declaration.path, declaration.format, declaration.table) = (
                "<host>", "<host>", .jsonl, nil
            )
            declaration.rows = rows
            declaration.isHostFile = false
        case .file(let file, let databaseTable):
            guard let format = databaseTable == nil ? format(ofFile: file) : .sqlite else {
                diagnostics.append(
                    Diagnostic(
                        message: "cannot tell the format of the table file \(PathText.quoted(file)) from its name",
                        location: at, help: "name it .csv, .jsonl, .ndjson, .db, .sqlite or .sqlite3"))
                return nil
            }
            guard format != .sqlite || databaseTable != nil else {
                diagnostics.append(
                    Diagnostic(
                        message: "the table \(table.name) reads a SQLite database: it needs its databaseTable",
                        location: at))
                return nil
            }
            (declaration.file, declaration.path, declaration.format) = (file, file, format)
            (declaration.table, declaration.tableLocation, declaration.rows) = (databaseTable, at, nil)
            declaration.isHostFile = true
        }
        return declaration
    }
}
