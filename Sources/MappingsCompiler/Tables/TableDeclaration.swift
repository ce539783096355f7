import MappingsJSON
import MappingsModel

/// A table of `@tables` as written: its name, its file, its key and its declared column types,
/// each with the place it was written, read before the file is.
struct TableDeclaration {
    /// The formats a table's file may be in.
    enum Format: String, CaseIterable {
        case csv, jsonl, sqlite
    }

    var name: String
    var nameLocation: SourceLocation
    /// `"file"` as written, and the path it resolves to (against the declaring `.mappings` file).
    var file: String
    var path: String
    var fileLocation: SourceLocation
    var format: Format
    /// `"table"`: the table (or view) of a SQLite database file, and where its name is written.
    var table: String?
    var tableLocation: SourceLocation?
    /// The rows a host gave (`Definitions.table(_:rows:key:columns:)`): there is no file.
    var rows: [JSONValue]?
    var isInMemory: Bool { rows != nil }
    /// Whether a host named the file (`Definitions.table(_:file:…)`): it is read from the disk,
    /// relative to the current directory, whatever source the `.mappings` files come from.
    var isHostFile = false
    /// `"key"`: one column name or several (a composite key), in order.
    var key: [(name: String, location: SourceLocation)]
    var keyLocation: SourceLocation
    /// `"columns"`: declared types by column name, with where each name was written.
    var columns: [(name: String, type: TypeReference, location: SourceLocation)]

    /// The options a table declaration may write.
    static let options = ["file", "key", "columns", "format", "table"]

    /// The column types a table may declare: scalars (every cell may be empty, so optional is implied).
    static func isCellType(_ type: TypeReference) -> Bool {
        switch type.unwrapped {
        case .string, .int, .double, .bool, .decimal, .url, .date, .uuid: true
        default: false
        }
    }

    /// Reads one member of `@tables`; `nil` when it is not a table declaration (reported).
    static func read(_ declaration: Declaration, diagnostics: inout [Diagnostic]) -> TableDeclaration? {
        let name = declaration.name
        guard isIdentifier(name) else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "a table's name is an identifier (letters, digits and _, not first a digit), not \(PathText.quoted(name))",
                    location: declaration.nameLocation,
                    help: "entries read it as \"@lookup\": \"name.column\" and scripts as tables.name"))
            return nil
        }
        guard let members = declaration.node.members else {
            diagnostics.append(
                Diagnostic(
                    message: "the table \(name) is an object, not \(declaration.node.typeName)",
                    location: declaration.node.location,
                    help: "write \"\(name)\": { \"file\": \"tables/\(name).csv\", \"key\": \"code\" }"))
            return nil
        }
        var valid = true
        for member in members where !options.contains(member.key) {
            valid = false
            diagnostics.append(
                Diagnostic(
                    message: "unknown option \(PathText.quoted(member.key)) of the table \(name)",
                    location: member.keyLocation,
                    help: Suggestion.help(for: member.key, among: options)
                        ?? "a table writes \"file\", \"key\", and optionally \"columns\" and \"format\""))
        }
        guard let fileMember = declaration.node.member("file"), let file = fileMember.value.stringValue, !file.isEmpty
        else {
            diagnostics.append(
                Diagnostic(
                    message: "the table \(name) needs a \"file\" (a path, relative to this .mappings file)",
                    location: declaration.node.member("file")?.value.location ?? declaration.nameLocation,
                    help: "write \"file\": \"tables/\(name).csv\""))
            return nil
        }
        let path = Path.join(Path.directory(of: declaration.file), file)
        guard let format = format(of: declaration, file: file, diagnostics: &diagnostics) else { return nil }
        let tableMember = declaration.node.member("table")
        let table = tableMember?.value.stringValue
        if format == .sqlite, table?.isEmpty != false {
            diagnostics.append(
                Diagnostic(
                    message:
                        "the table \(name) reads a SQLite database: it needs a \"table\" (the database's table or view)",
                    location: tableMember?.value.location ?? declaration.nameLocation,
                    help: "write \"table\": \"\(name)\""))
            return nil
        }
        if format != .sqlite, let tableMember {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"table\" names a table of a SQLite database, but the table \(name) reads \(format.rawValue)",
                    location: tableMember.keyLocation, help: "remove \"table\", or name a .db, .sqlite or .sqlite3 file"
                ))
            return nil
        }
        guard let keyMember = declaration.node.member("key") else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "the table \(name) needs a \"key\": the column (or the array of columns) rows are found by",
                    location: declaration.nameLocation, help: "write \"key\": \"code\""))
            return nil
        }
        let key = keyMember.value.stringList(
            whole: "\"key\" takes a column name or an array of column names",
            element: "a key column is a non-empty name", diagnostics: &diagnostics)
        if key.isEmpty { return nil }
        var columns: [(String, TypeReference, SourceLocation)] = []
        if let columnsMember = declaration.node.member("columns") {
            guard let declared = columnsMember.value.members else {
                diagnostics.append(
                    Diagnostic(
                        message: "\"columns\" takes an object of column types, not \(columnsMember.value.typeName)",
                        location: columnsMember.value.location, help: "write \"columns\": { \"population\": \"Int\" }"))
                return nil
            }
            for column in declared {
                guard let text = column.value.stringValue, let type = try? TypeParser.parse(text), isCellType(type)
                else {
                    valid = false
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "the column \(PathText.quoted(column.key)) of the table \(name) takes a scalar type (String, Int, Double, Bool, Decimal, URL, Date or UUID)",
                            location: column.value.location,
                            help: column.value.stringValue.flatMap {
                                Suggestion.help(
                                    for: $0,
                                    among: ["String", "Int", "Double", "Bool", "Decimal", "URL", "Date", "UUID"])
                            } ?? "write \"\(column.key)\": \"Int\""))
                    continue
                }
                columns.append((column.key, type.unwrapped, column.keyLocation))
            }
        }
        guard valid else { return nil }
        return TableDeclaration(
            name: name, nameLocation: declaration.nameLocation, file: file, path: path,
            fileLocation: fileMember.value.location, format: format, table: table,
            tableLocation: tableMember?.value.location,
            key: key.map { (name: $0.value, location: $0.location) }, keyLocation: keyMember.value.location,
            columns: columns)
    }

    /// The format a file's extension says: `.csv`; `.jsonl` or `.ndjson`; `.db`, `.sqlite` or `.sqlite3`.
    static func format(ofFile file: String) -> Format? {
        let lowered = file.lowercased()
        if lowered.hasSuffix(".csv") { return .csv }
        if lowered.hasSuffix(".jsonl") || lowered.hasSuffix(".ndjson") { return .jsonl }
        if lowered.hasSuffix(".db") || lowered.hasSuffix(".sqlite") || lowered.hasSuffix(".sqlite3") { return .sqlite }
        return nil
    }

    /// `"format"`, else the file's extension: `.csv`, `.jsonl` or `.ndjson`, `.db`, `.sqlite` or `.sqlite3`.
    private static func format(of declaration: Declaration, file: String, diagnostics: inout [Diagnostic]) -> Format? {
        if let member = declaration.node.member("format") {
            guard let text = member.value.stringValue, let format = Format(rawValue: text) else {
                diagnostics.append(
                    Diagnostic(
                        message: "\"format\" is \"csv\", \"jsonl\" or \"sqlite\"", location: member.value.location,
                        help: member.value.stringValue.flatMap {
                            Suggestion.help(for: $0, among: Format.allCases.map(\.rawValue))
                        }))
                return nil
            }
            return format
        }
        if let format = format(ofFile: file) { return format }
        let fileLocation = declaration.node.member("file")?.value.location
        diagnostics.append(
            Diagnostic(
                message: "cannot tell the format of the table file \(PathText.quoted(file)) from its name",
                location: fileLocation,
                help:
                    "name it .csv, .jsonl, .ndjson, .db, .sqlite or .sqlite3, or write \"format\": \"csv\", \"jsonl\" or \"sqlite\""
            ))
        return nil
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic, first.isASCII
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
    }
}
