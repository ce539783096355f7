import Foundation
package import Mappings
import MappingsEncoding
import MappingsSpark

/// The two databases `stream --to` writes: the SQL each is spoken in.
package enum SQLDialect: String, Sendable, CaseIterable {
    case sqlite
    case postgresql

    /// `"name"`, with a double quote in it doubled: any name is a valid identifier.
    package func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `'text'`, with a quote in it doubled.
    package func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}

/// A table a context's records go into: a column for each property of its model (the top-level
/// fields of its output), named in snake_case, typed by the model's type; the context's
/// `@identity` as the primary key. Nested models, collections, dictionaries and `JSON` values are
/// columns of JSON text (`jsonb` in PostgreSQL): a record is one row, and what a row holds reads
/// back as the record (docs/operations.md, "Into a database").
package struct SQLTable: Sendable {
    package enum Kind: Sendable, Equatable {
        case integer, double, boolean, date, decimal, string, json
    }

    package struct Column: Sendable {
        /// The column's name (the property's in snake_case).
        package var name: String
        /// The property it holds, as the output names it.
        package var property: String
        package var kind: Kind
        package var nullable: Bool
    }

    package var name: String
    package var columns: [Column]
    /// The indexes of the identity's columns, in the order `@identity` names them; empty
    /// when the context has none (rows are inserted, never updated).
    package var key: [Int]

    /// Why a context has no table.
    package struct Refusal: Error, Sendable {
        package var message: String
        package init(_ message: String) { self.message = message }
    }

    /// The table of a context whose output has `schema`, keyed by `identity` (property names).
    package init(name: String, schema: ValueSchema, identity: [String]) throws(Refusal) {
        let record = schema.nodes[0]
        var columns: [Column] = []
        var byName: [String: String] = [:]
        for index in Int(record.first)..<Int(record.first + record.count) {
            let node = schema.nodes[index]
            let property = String(decoding: schema.name(index), as: UTF8.self)
            let column = Self.snakeCase(property)
            if let other = byName[column] {
                throw Refusal(
                    "the properties \"\(other)\" and \"\(property)\" would both be the column \"\(column)\"; rename one of them"
                )
            }
            byName[column] = property
            let kind: Kind
            switch node.kind {
            case .integer: kind = .integer
            case .double: kind = .double
            case .boolean: kind = .boolean
            case .date: kind = .date
            case .decimal: kind = .decimal
            case .string: kind = .string
            case .json, .structure, .list, .map: kind = .json
            }
            columns.append(Column(name: column, property: property, kind: kind, nullable: node.nullable))
        }
        var key: [Int] = []
        for property in identity {
            guard let index = columns.firstIndex(where: { $0.property == property }) else {
                throw Refusal("the identity property \"\(property)\" is not in the context's output")
            }
            // A key column is never null: a record without its identity is refused by the database.
            columns[index].nullable = false
            key.append(index)
        }
        self.name = name
        self.columns = columns
        self.key = key
    }

    /// `createdAt` → `created_at`, `HTTPStatus` → `http_status`, `user_id` unchanged.
    package static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var out = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase {
                let previous = index > 0 ? characters[index - 1] : nil
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let afterLower = previous.map { $0.isLowercase || $0.isNumber } ?? false
                let endsAcronym = (previous?.isUppercase ?? false) && (next?.isLowercase ?? false)
                if index > 0, afterLower || endsAcronym, out.last != "_" { out.append("_") }
                out += character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// The column type of `kind`: SQLite's keep every digit of a decimal and a date's text as
    /// written (TEXT); PostgreSQL's are its own types.
    package static func type(_ kind: Kind, _ dialect: SQLDialect) -> String {
        switch (kind, dialect) {
        case (.integer, .sqlite): "INTEGER"
        case (.integer, .postgresql): "bigint"
        case (.double, .sqlite): "REAL"
        case (.double, .postgresql): "double precision"
        case (.boolean, .sqlite): "INTEGER"
        case (.boolean, .postgresql): "boolean"
        case (.date, .sqlite): "TEXT"
        case (.date, .postgresql): "timestamptz"
        case (.decimal, .sqlite): "TEXT"
        case (.decimal, .postgresql): "numeric"
        case (.string, .sqlite): "TEXT"
        case (.string, .postgresql): "text"
        case (.json, .sqlite): "TEXT"
        case (.json, .postgresql): "jsonb"
        }
    }

    /// `CREATE TABLE IF NOT EXISTS …` of this table.
    package func createStatement(_ dialect: SQLDialect) -> String {
        var lines = columns.map { column in
            "    \(dialect.quote(column.name)) \(Self.type(column.kind, dialect))"
                + (column.nullable ? "" : " NOT NULL")
        }
        if !key.isEmpty {
            lines.append(
                "    PRIMARY KEY (" + key.map { dialect.quote(columns[$0].name) }.joined(separator: ", ") + ")")
        }
        return "CREATE TABLE IF NOT EXISTS \(dialect.quote(name)) (\n" + lines.joined(separator: ",\n") + "\n);"
    }

    /// The column list, quoted: `"id", "name"`.
    package func columnList(_ dialect: SQLDialect) -> String {
        columns.map { dialect.quote($0.name) }.joined(separator: ", ")
    }

    /// `ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", …`: a record with a stored
    /// identity replaces the row's other columns; empty without an identity.
    package func conflictClause(_ dialect: SQLDialect) -> String {
        guard !key.isEmpty else { return "" }
        let keys = Set(key)
        let updates = columns.indices.filter { !keys.contains($0) }.map {
            "\(dialect.quote(columns[$0].name)) = excluded.\(dialect.quote(columns[$0].name))"
        }
        let target = " ON CONFLICT (" + key.map { dialect.quote(columns[$0].name) }.joined(separator: ", ") + ")"
        return updates.isEmpty ? target + " DO NOTHING" : target + " DO UPDATE SET " + updates.joined(separator: ", ")
    }

    /// The table of the exactly-once positions: one row a job, written in the transaction of
    /// each batch.
    package static func offsetsStatement(_ dialect: SQLDialect) -> String {
        let big = dialect == .sqlite ? "INTEGER" : "bigint"
        let text = dialect == .sqlite ? "TEXT" : "text"
        return """
            CREATE TABLE IF NOT EXISTS "mappings_offsets" (
                "job" \(text) PRIMARY KEY,
                "file" \(text) NOT NULL,
                "line" \(big) NOT NULL,
                "byte_offset" \(big),
                "records" \(big) NOT NULL,
                "rejected" \(big) NOT NULL,
                "updated_at" \(dialect == .sqlite ? "TEXT" : "timestamptz") NOT NULL,
                "digest" \(text),
                "device" \(big),
                "inode" \(big)
            );
            """
    }

    /// The columns of `mappings_offsets` that an older version did not create (the identity of
    /// the file a job stopped in): added to a table that lacks them, as `ALTER TABLE … ADD COLUMN`.
    package static func offsetsColumnsAdded(_ dialect: SQLDialect) -> [(name: String, type: String)] {
        let big = dialect == .sqlite ? "INTEGER" : "bigint"
        let text = dialect == .sqlite ? "TEXT" : "text"
        return [("digest", text), ("device", big), ("inode", big)]
    }

    /// The longest identifier PostgreSQL keeps whole (NAMEDATALEN - 1 bytes): a longer one is
    /// cut there without a word, so that two tables or columns may become one.
    package static let longestPostgreSQLIdentifier = 63

    /// Throws when `name`, a table's or a column's, is longer than PostgreSQL keeps.
    package static func checkIdentifier(_ name: String, what: String, _ dialect: SQLDialect) throws(Refusal) {
        guard dialect == .postgresql, name.utf8.count > longestPostgreSQLIdentifier else { return }
        throw Refusal(
            "\(what) \"\(name)\" is \(name.utf8.count) bytes, and PostgreSQL keeps \(longestPostgreSQLIdentifier) of an identifier (it would cut it to \"\(String(decoding: name.utf8.prefix(longestPostgreSQLIdentifier), as: UTF8.self))\" silently): choose a shorter name"
        )
    }

    /// Throws when the table's name or one of its columns' is longer than `dialect` keeps.
    package func checkIdentifiers(_ dialect: SQLDialect) throws(Refusal) {
        try Self.checkIdentifier(name, what: "the table's name", dialect)
        for column in columns {
            try Self.checkIdentifier(column.name, what: "the column of \(column.property)", dialect)
        }
    }

    /// A rejects table: the stream's rejects as rows, in the transactions of the records.
    package static func rejectsStatement(_ name: String, _ dialect: SQLDialect) -> String {
        let big = dialect == .sqlite ? "INTEGER" : "bigint"
        let text = dialect == .sqlite ? "TEXT" : "text"
        return """
            CREATE TABLE IF NOT EXISTS \(dialect.quote(name)) (
                "job" \(text),
                "file" \(text),
                "line" \(big) NOT NULL,
                "input" \(text) NOT NULL,
                "issues" \(dialect == .sqlite ? "TEXT" : "jsonb") NOT NULL,
                "rejected_at" \(dialect == .sqlite ? "TEXT" : "timestamptz") NOT NULL
            );
            """
    }

    /// What `mappings schema --format sql` prints: the table, and the offsets table the stream
    /// keeps beside it.
    package func script(_ dialect: SQLDialect) -> String {
        "-- The table of \(name)'s records (mappings stream --to … --create-tables creates the same).\n"
            + createStatement(dialect) + "\n"
            + "-- Where each job stands: written in the transaction of every batch (--job NAME).\n"
            + Self.offsetsStatement(dialect) + "\n"
    }

    /// What the kinds of a column in a table that exists may be, by the type the database
    /// names (lower-cased): a table made by hand fits when each column holds what the record
    /// writes without losing a digit.
    package static func fits(_ kind: Kind, declared: String, _ dialect: SQLDialect) -> Bool {
        let type = declared.lowercased()
        switch dialect {
        case .sqlite:
            // SQLite's affinity, by its rules: a TEXT column keeps a decimal's or a date's text
            // as written; a NUMERIC one would turn "1.10" into 1.1.
            let textual = type.contains("char") || type.contains("clob") || type.contains("text")
            switch kind {
            case .integer, .boolean: return type.contains("int") || type.isEmpty
            case .double: return type.contains("real") || type.contains("floa") || type.contains("doub")
            case .date, .decimal, .string, .json: return textual
            }
        case .postgresql:
            switch kind {
            case .integer: return type == "bigint" || type == "numeric"
            case .double: return type == "double precision" || type == "numeric"
            case .boolean: return type == "boolean"
            case .date: return type == "timestamp with time zone"
            case .decimal: return type == "numeric" || type == "text"
            case .string: return type == "text" || type == "character varying"
            case .json: return type == "jsonb" || type == "json" || type == "text"
            }
        }
    }
}

extension SQLTable {
    /// The table of `context`'s records: its output's fields (the context's Spark schema, which
    /// resolves nested models, unions and collections), keyed by its `@identity`, named `name`
    /// or its model's name in snake_case.
    package static func of(_ context: CompiledContext, in catalog: Catalog, named name: String?) throws(Refusal)
        -> SQLTable
    {
        guard let schema = ValueSchema(spark: catalog.sparkSchema(of: context)) else {
            throw Refusal("its output has a type no column holds")
        }
        let fallback = (context.model ?? context.identifier.map { String($0.drop { $0 == "$" }) }) ?? "records"
        return try SQLTable(
            name: name ?? snakeCase(fallback), schema: schema, identity: context.identity?.properties ?? [])
    }
}
