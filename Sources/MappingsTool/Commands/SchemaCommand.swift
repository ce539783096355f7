import ArgumentParser
import Mappings
import MappingsEncoding
import MappingsPython
import MappingsSQL
import MappingsSpark
import MappingsStream

/// `mappings schema`: the shape of a context's output, as JSON Schema or as a Spark schema.
struct SchemaCommand: ParsableCommand, LoadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the shape of what a context maps to, as a JSON Schema, a Spark, Arrow or Avro schema, or SQL.",
        discussion: """
            Writes one line of JSON to stdout: a JSON Schema (draft 2020-12) that every record \
            'mappings map' or 'mappings stream' writes without an error validates against, or the \
            Spark StructType of those records, as StructType.fromJson reads it. Model objects list \
            every property (null where no required entry or default sets it); dates are date-time \
            strings (Spark timestamps); decimals are JSON numbers (Spark strings, which keep every \
            digit); a recursive model nested in itself is a Spark string of JSON text. The Avro \
            schema is the one 'stream --to-format avro' writes by when it is given none.

            Exit status: 0 printed; 2 the contexts or arguments could not be loaded.

            Examples:
              mappings schema --context '$TweetModel'
              mappings schema --context '$TweetModel' --format spark
              mappings schema --context '$TweetModel' --many
              mappings schema --context '$TweetModel' --format avro
            """
    )

    @OptionGroup var load: LoadOptions

    @Option(
        help: ArgumentHelp(
            "The identifier of the context, such as '$TweetModel'; without it, the one context the files hold.",
            valueName: "id"),
        completion: Completions.contexts)
    var context: String?

    @Option(
        help:
            "The schema language: json-schema, spark, arrow (the Arrow schema of the Python module's to_arrow, as pyarrow prints it), sql (the table of stream --to), or avro (the schema of stream --to-format avro)."
    )
    var format: Format = .jsonSchema

    @Option(help: "With --format sql: the database, sqlite or postgresql.")
    var dialect: Dialect = .sqlite

    @Option(
        help: ArgumentHelp(
            "With --format sql: the table's name (default: the model's, in snake_case).", valueName: "name"))
    var table: String?

    /// `--dialect`'s values.
    enum Dialect: String, ExpressibleByArgument, CaseIterable {
        case sqlite, postgresql
    }

    @Flag(help: "The schema of what 'mappings map --many' writes: an array of the context's objects.")
    var many = false

    /// `--format`'s values: the schema languages, by their names on the command line.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jsonSchema = "json-schema"
        case spark
        case arrow
        case sql
        case avro
    }

    func validate() throws {
        if many && (format == .arrow || format == .sql) {
            throw ValidationError(
                "--many has no \(format == .sql ? "SQL" : "Arrow") form: a table's rows are the objects")
        }
        if many && format == .avro {
            throw ValidationError("--many has no Avro form: a container's datums are the objects")
        }
        if format != .sql, table != nil {
            throw ValidationError("--table names the table of --format sql")
        }
    }

    func run() throws {
        let catalog = try load.loadCatalog()
        let compiled = try LoadOptions.context(
            try LoadOptions.contextIdentifier(context, in: catalog), of: Mapper(catalog: catalog))
        let schema: JSONValue
        switch format {
        case .jsonSchema: schema = catalog.outputSchema(of: compiled, as: .jsonSchema)
        case .spark: schema = catalog.sparkSchema(of: compiled)
        case .arrow:
            guard let values = ValueSchema(spark: catalog.sparkSchema(of: compiled)) else {
                throw ToolFailure(status: .loadFailure)
            }
            return Terminal.output(ArrowBuilder.schemaText(values))
        case .sql:
            do {
                let table = try SQLTable.of(compiled, in: catalog, named: table)
                let dialect: SQLDialect = dialect == .sqlite ? .sqlite : .postgresql
                try table.checkIdentifiers(dialect)
                return Terminal.output(String(table.script(dialect).dropLast()))
            } catch {
                Terminal.error("error: \(compiled.identifier ?? "the context") has no table: \(error.message)")
                throw ToolFailure(status: .loadFailure)
            }
        case .avro:
            do {
                return Terminal.output(try AvroSchema.derived(for: compiled, in: catalog).text)
            } catch {
                Terminal.error("error: \(compiled.identifier ?? "the context") has no Avro schema: \(error.message)")
                throw ToolFailure(status: .loadFailure)
            }
        }
        Terminal.output((many ? Self.array(of: schema, format: format) : schema).jsonText)
    }

    /// The schema of an array of what `schema` describes: JSON Schema's `items` (its `$schema`,
    /// `title` and `$defs` staying at the top), Spark's `ArrayType`.
    static func array(of schema: JSONValue, format: Format) -> JSONValue {
        guard case .object(let object) = schema else { return schema }
        switch format {
        case .spark, .arrow, .sql, .avro:
            return .object(
                JSONObject([("type", .string("array")), ("elementType", schema), ("containsNull", .bool(false))]))
        case .jsonSchema:
            let top = ["$schema", "title", "$defs"]
            let items = JSONObject(object.members.filter { !top.contains($0.key) })
            var members: [(String, JSONValue)] = object.members.filter { $0.key == "$schema" || $0.key == "title" }
            members.append(("type", .string("array")))
            members.append(("items", .object(items)))
            members += object.members.filter { $0.key == "$defs" }
            return .object(JSONObject(members))
        }
    }
}
