import MappingsJSON

extension CatalogLoader {
    /// Reads every `@tables` declaration of the files loaded and the table files they name.
    ///
    /// Table names are one namespace for the whole load (an entry of any file, and every script,
    /// may read any table); a name declared twice is an error naming both places. Returns the
    /// tables by name, and the texts of the table files read (diagnostics show their lines).
    mutating func loadTables(_ sources: LoadedSources, from source: FileSource) -> (
        tables: [String: LookupTable], texts: [String: String]
    ) {
        var tables: [String: LookupTable] = [:]
        var declaredAt: [String: SourceLocation] = [:]
        var texts: [String: String] = [:]
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
                    if let table { tables[declaration.name] = table }
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
                texts[declaration.path] = String(decoding: bytes, as: UTF8.self)
                var reader = TableReader(declaration: declaration)
                let table = reader.read(bytes)
                diagnostics += reader.diagnostics
                if let table { tables[declaration.name] = table }
            }
        }
        return (tables, texts)
    }
}
