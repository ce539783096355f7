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
        tables: [String: LookupTable], texts: [String: String]
    ) {
        var tables: [String: LookupTable] = [:]
        var declaredAt: [String: SourceLocation] = [:]
        var texts: [String: String] = [:]
        var memory = 0
        func keep(_ table: LookupTable, _ declaration: TableDeclaration) {
            memory += table.memory
            guard memory <= maxTableMemory else {
                diagnostics.append(tooLarge(table, declaration, before: memory - table.memory))
                return
            }
            tables[declaration.name] = table
        }
        for file in sources.files {
            for declared in file.tables {
                if let first = declaredAt[declared.name] {
                    diagnostics.append(
                        Diagnostic(
                            message: "the table \(declared.name) is declared twice", location: declared.nameLocation,
                            notes: [Diagnostic.Note(message: "first declared here", location: first)],
                            help: "give one of them another name"))
                    continue
                }
                declaredAt[declared.name] = declared.nameLocation
                guard let declaration = TableDeclaration.read(declared, diagnostics: &diagnostics) else { continue }
                if declaration.format == .sqlite {
                    var reader = TableReader(declaration: declaration)
                    let table = reader.readDatabase()
                    diagnostics += reader.diagnostics
                    if let table { keep(table, declaration) }
                    continue
                }
                let bytes: [UInt8]
                do {
                    bytes = try source.read(declaration.path)
                } catch {
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "cannot read the table file \(PathText.quoted(declaration.path)) of the table \(declaration.name): \(FileError.reason(error))",
                            location: declaration.fileLocation,
                            help: "the path is relative to the .mappings file that declares the table"))
                    continue
                }
                var reader = TableReader(declaration: declaration)
                let table = reader.read(bytes)
                diagnostics += reader.diagnostics
                if !reader.diagnostics.isEmpty { texts[declaration.path] = String(decoding: bytes, as: UTF8.self) }
                if let table { keep(table, declaration) }
            }
        }
        return (tables, texts)
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
