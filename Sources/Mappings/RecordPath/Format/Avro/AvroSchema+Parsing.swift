import MappingsJSON

extension AvroSchema {
    /// Why a schema's text is no Avro schema: `"the field \"id\" of record \"User\" has no type"`.
    package struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        package var message: String
        package var description: String { message }

        package init(_ message: String) {
            self.message = message
        }
    }

    /// Reads a schema's JSON text, as a container's header or a schema file holds it.
    /// - Parameter text: the schema (a JSON string, object or array, as the specification says).
    package init(parsing text: String) throws(Invalid) {
        let json: JSONValue
        do {
            json = try JSONParser.parse(text)
        } catch {
            throw Invalid("the schema is not JSON: \(error.description)")
        }
        var parser = Parser()
        let root = try parser.node(json, namespace: nil)
        self.init(nodes: parser.nodes, root: root, text: text)
    }

    /// Builds the node table, keeping the named types seen so far by full name.
    private struct Parser {
        var nodes: [Node] = []
        var named: [String: Int] = [:]
        var depth = 0

        static let primitives: [String: Kind] = [
            "null": .null, "boolean": .boolean, "int": .int, "long": .long, "float": .float, "double": .double,
            "bytes": .bytes, "string": .string,
        ]

        mutating func node(_ json: JSONValue, namespace: String?) throws(Invalid) -> Int {
            depth += 1
            defer { depth -= 1 }
            guard depth <= JSONParser.maximumDepth else { throw Invalid("the schema nests deeper than \(depth - 1)") }
            switch json {
            case .string(let name): return try reference(name, namespace: namespace)
            case .array(let branches): return try union(branches, namespace: namespace)
            case .object(let object): return try declaration(object, namespace: namespace)
            default: throw Invalid("a schema is a name, an object or an array (a union), not \(json.typeName)")
            }
        }

        mutating func append(_ kind: Kind, logical: Logical? = nil) -> Int {
            nodes.append(Node(kind: kind, logical: logical))
            return nodes.count - 1
        }

        mutating func reference(_ name: String, namespace: String?) throws(Invalid) -> Int {
            if let kind = Self.primitives[name] { return append(kind) }
            if !name.contains("."), let namespace, let index = named["\(namespace).\(name)"] { return index }
            if let index = named[name] { return index }
            throw Invalid("the schema uses the type \"\(name)\", which it does not declare (before that use)")
        }

        mutating func union(_ branches: [JSONValue], namespace: String?) throws(Invalid) -> Int {
            guard !branches.isEmpty else { throw Invalid("a union needs at least one branch") }
            var indexes: [Int] = []
            for branch in branches {
                let index = try node(branch, namespace: namespace)
                if case .union = nodes[index].kind { throw Invalid("a union cannot hold a union directly") }
                indexes.append(index)
            }
            return append(.union(branches: indexes))
        }

        mutating func declaration(_ object: JSONObject, namespace: String?) throws(Invalid) -> Int {
            guard let type = object["type"] else { throw Invalid("a schema object needs a \"type\"") }
            guard case .string(let name) = type else {
                // {"type": {...}} or {"type": [...]}: the type is the inner schema.
                return try node(type, namespace: namespace)
            }
            switch name {
            case "record", "error": return try record(object, namespace: namespace)
            case "enum": return try enumeration(object, namespace: namespace)
            case "fixed": return try fixed(object, namespace: namespace)
            case "array":
                guard let items = object["items"] else { throw Invalid("an array needs \"items\"") }
                return append(.array(items: try node(items, namespace: namespace)))
            case "map":
                guard let values = object["values"] else { throw Invalid("a map needs \"values\"") }
                return append(.map(values: try node(values, namespace: namespace)))
            default:
                guard let kind = Self.primitives[name] else { return try reference(name, namespace: namespace) }
                return append(kind, logical: AvroSchema.logical(object, on: kind))
            }
        }

        /// The full name a named type declares, and the namespace its own names resolve in.
        func fullName(_ object: JSONObject, namespace: String?) throws(Invalid) -> (name: String, space: String?) {
            guard case .string(let name)? = object["name"], !name.isEmpty else {
                throw Invalid("a record, an enum or a fixed needs a \"name\"")
            }
            if let dot = name.lastIndex(of: ".") { return (name, String(name[..<dot])) }
            var space = namespace
            if case .string(let given)? = object["namespace"] { space = given.isEmpty ? nil : given }
            return (space.map { "\($0).\(name)" } ?? name, space)
        }

        mutating func declare(_ name: String) throws(Invalid) -> Int {
            guard named[name] == nil, Self.primitives[name] == nil else {
                throw Invalid("the schema declares the type \"\(name)\" twice")
            }
            let index = append(.null)
            named[name] = index
            return index
        }

        mutating func record(_ object: JSONObject, namespace: String?) throws(Invalid) -> Int {
            let (name, space) = try fullName(object, namespace: namespace)
            let index = try declare(name)
            guard case .array(let list)? = object["fields"] else {
                throw Invalid("the record \"\(name)\" needs \"fields\", an array")
            }
            var fields: [Field] = []
            for case let item in list {
                guard case .object(let field) = item, case .string(let fieldName)? = field["name"] else {
                    throw Invalid("a field of the record \"\(name)\" needs a \"name\"")
                }
                guard let type = field["type"] else {
                    throw Invalid("the field \"\(fieldName)\" of the record \"\(name)\" has no type")
                }
                if fields.contains(where: { $0.name == fieldName }) {
                    throw Invalid("the record \"\(name)\" has two fields named \"\(fieldName)\"")
                }
                let typeIndex = try node(type, namespace: space)
                fields.append(Field(name: fieldName, type: typeIndex, defaultValue: field["default"]))
            }
            nodes[index].kind = .record(name: name, fields: fields)
            return index
        }

        mutating func enumeration(_ object: JSONObject, namespace: String?) throws(Invalid) -> Int {
            let (name, _) = try fullName(object, namespace: namespace)
            guard case .array(let list)? = object["symbols"] else {
                throw Invalid("the enum \"\(name)\" needs \"symbols\", an array")
            }
            var symbols: [String] = []
            for case let item in list {
                guard case .string(let symbol) = item, !symbols.contains(symbol) else {
                    throw Invalid("the symbols of the enum \"\(name)\" are strings, each once")
                }
                symbols.append(symbol)
            }
            let index = try declare(name)
            nodes[index].kind = .enumeration(name: name, symbols: symbols)
            return index
        }

        mutating func fixed(_ object: JSONObject, namespace: String?) throws(Invalid) -> Int {
            let (name, _) = try fullName(object, namespace: namespace)
            guard case .integer(let size)? = object["size"], size >= 0, size <= Int64(Int32.max) else {
                throw Invalid("the fixed \"\(name)\" needs a \"size\", a whole number of bytes")
            }
            let index = try declare(name)
            let kind = Kind.fixed(name: name, size: Int(size))
            nodes[index] = Node(kind: kind, logical: AvroSchema.logical(object, on: kind))
            return index
        }
    }
}
