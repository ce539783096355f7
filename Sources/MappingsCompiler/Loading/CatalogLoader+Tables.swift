import MappingsJSON

extension CatalogLoader {
    /// Reads every `@tables` declaration of the files loaded and the table files they name.
    ///
    /// Table names are one namespace for the whole load (an entry of any file, and every script,
    /// may read any table); a name declared twice is an error naming both places. Returns the
    /// tables by name, and the texts of the table files that have problems (diagnostics show
    /// their lines). The tables together take at most `maxTableMemory` bytes: the one that
    /// would pass it is an error naming it, its file and its size.
    mutating func loadTables(_ sources: LoadedSources, from source: FileSource) -> (
        tables: [String: LookupTable], texts: [String: String], declarations: [String: TableDeclaration]
    ) {
        var tables: [String: LookupTable] = [:]
        var texts: [String: String] = [:]
        var declared: [String: TableDeclaration] = [:]
        var memory = 0
        for declaration in tableDeclarations(sources) {
            declared[declaration.name] = declaration
            guard let table = readTable(declaration, from: source, texts: &texts) else { continue }
            memory += table.memory
            guard memory <= maxTableMemory else {
                diagnostics.append(tooLarge(table, declaration, before: memory - table.memory))
                continue
            }
            tables[declaration.name] = table
        }
        return (tables, texts, declared)
    }

    /// The table of a declaration: its rows, its database or its file (read from `source`, or
    /// from the disk for a host's file); `nil` after reporting a problem, the text of a file
    /// with a problem kept in `texts` (diagnostics show its lines).
    mutating func readTable(
        _ declaration: TableDeclaration, from source: FileSource, texts: inout [String: String]
    ) -> LookupTable? {
        var reader = TableReader(declaration: declaration)
        defer { diagnostics += reader.diagnostics }
        if let rows = declaration.rows { return reader.read(rows: rows) }
        if declaration.format == .sqlite { return reader.readDatabase() }
        let bytes: [UInt8]
        do {
            bytes = try (declaration.isHostFile ? .disk : source).read(declaration.path)
        } catch {
            diagnostics.append(
                Diagnostic(
                    message:
                        "cannot read the table file \(PathText.quoted(declaration.path)) of the table \(declaration.name): \(FileError.reason(error))",
                    location: declaration.fileLocation,
                    help: declaration.isHostFile
                        ? "the host's path is relative to the current directory"
                        : "the path is relative to the .mappings file that declares the table"))
            return nil
        }
        let table = reader.read(bytes)
        if !reader.diagnostics.isEmpty { texts[declaration.path] = String(decoding: bytes, as: UTF8.self) }
        return table
    }

    /// The tables to load, in order: the files' `@tables` declarations (a name declared twice
    /// is an error naming both places), each with the source a host gives for its name, then
    /// the host's other tables.
    private mutating func tableDeclarations(_ sources: LoadedSources) -> [TableDeclaration] {
        var declarations: [TableDeclaration] = []
        var declaredAt: [String: SourceLocation] = [:]
        for declared in sources.files.flatMap(\.tables) {
            if let first = declaredAt[declared.name] {
                diagnostics.append(
                    Diagnostic(
                        message: "the table \(declared.name) is declared twice", location: declared.nameLocation,
                        notes: [Diagnostic.Note(message: "first declared here", location: first)],
                        help: "give one of them another name"))
                continue
            }
            declaredAt[declared.name] = declared.nameLocation
            if let declaration = TableDeclaration.read(declared, diagnostics: &diagnostics) {
                declarations.append(declaration)
            }
        }
        var given: [String: SourceLocation] = [:]
        for table in definitions.tables {
            if let first = given[table.name] {
                diagnostics.append(
                    Diagnostic(
                        message: "the host gives the table \(table.name) twice", location: table.location,
                        notes: [Diagnostic.Note(message: "first given here", location: first)]))
                continue
            }
            given[table.name] = table.location
            let index = declarations.firstIndex { $0.name == table.name }
            // A declaration that did not read has been reported: the host's rows would not help.
            if index == nil, declaredAt[table.name] != nil { continue }
            guard
                let declaration = TableDeclaration.host(
                    table, over: index.map { declarations[$0] }, diagnostics: &diagnostics)
            else { continue }
            if let index { declarations[index] = declaration } else { declarations.append(declaration) }
        }
        return declarations
    }

    /// The error of a table that takes the tables past `maxTableMemory`.
    private func tooLarge(_ table: LookupTable, _ declaration: TableDeclaration, before: Int) -> Diagnostic {
        let others = before > 0 ? ", with the \(LookupTable.memoryText(before)) of the tables before it" : ""
        return Diagnostic(
            message:
                "the table \(table.name) (\(table.file), \(table.rowCount) row\(table.rowCount == 1 ? "" : "s")) takes \(LookupTable.memoryText(table.memory)) in memory: past the tables' cap of \(LookupTable.memoryText(maxTableMemory))\(others) (--max-table-memory)",
            location: declaration.nameLocation,
            help:
                "raise the cap (--max-table-memory MIB; a host: Catalog.load(maxTableMemory:)), or give the table fewer rows"
        )
    }
}
