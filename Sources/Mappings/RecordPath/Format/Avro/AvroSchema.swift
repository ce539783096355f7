package import MappingsJSON

/// An Avro schema as its writer declared it, logical types included (avro-c's parser drops them,
/// so the format reads schemas itself).
///
/// Named types may refer to themselves (a linked list, a tree), so the schema is a table of
/// nodes that refer to each other by index: `root` is the datum's, and a name used again is the
/// index of the node that declared it.
package struct AvroSchema: Sendable, Equatable {
    /// The schema's nodes; `Node.Kind`'s children are indexes into it.
    package var nodes: [Node]
    /// The node of a whole datum.
    package var root: Int
    /// The schema's JSON text as it was given (a container's header keeps it as is).
    package var text: String

    /// One type of the schema.
    package struct Node: Sendable, Equatable {
        package var kind: Kind
        /// The logical type it carries, when valid for `kind` (an invalid one is ignored, as
        /// the specification says: the value reads as its underlying type).
        package var logical: Logical?
    }

    /// Avro's types; a named one (record, enum, fixed) carries its full name.
    package enum Kind: Sendable, Equatable {
        case null, boolean, int, long, float, double, bytes, string
        case record(name: String, fields: [Field])
        case enumeration(name: String, symbols: [String])
        case array(items: Int)
        case map(values: Int)
        case union(branches: [Int])
        case fixed(name: String, size: Int)
    }

    /// A field of a record: its name, its type's node, its default if it has one.
    package struct Field: Sendable, Equatable {
        package var name: String
        package var type: Int
        package var defaultValue: JSONValue?
    }

    /// The logical types the format reads exactly (docs/formats.md, "Avro").
    package enum Logical: Sendable, Equatable {
        case decimal(precision: Int, scale: Int)
        case date
        case timeMillis, timeMicros
        case timestampMillis, timestampMicros
        case localTimestampMillis, localTimestampMicros
        case uuid
        case duration
    }

    /// The node at `index`.
    package subscript(index: Int) -> Node { nodes[index] }

    /// The type of the node at `index` as messages name it: `long`, `record "User"`, `union`.
    package func typeName(_ index: Int) -> String {
        switch nodes[index].kind {
        case .null: "null"
        case .boolean: "boolean"
        case .int: "int"
        case .long: "long"
        case .float: "float"
        case .double: "double"
        case .bytes: "bytes"
        case .string: "string"
        case .record(let name, _): "record \"\(name)\""
        case .enumeration(let name, _): "enum \"\(name)\""
        case .array: "array"
        case .map: "map"
        case .union: "union"
        case .fixed(let name, let size): "fixed \"\(name)\" (\(size) bytes)"
        }
    }

    /// The fewest bytes a datum of the node at `index` takes (0 for null, an empty record, a
    /// zero-sized fixed): what bounds an array's or a map's count before it is read.
    package func minimumSize(of index: Int) -> Int {
        var visiting: Set<Int> = []
        return minimumSize(of: index, visiting: &visiting)
    }

    private func minimumSize(of index: Int, visiting: inout Set<Int>) -> Int {
        switch nodes[index].kind {
        case .null: return 0
        case .boolean, .int, .long, .bytes, .string, .enumeration, .array, .map, .union: return 1
        case .float: return 4
        case .double: return 8
        case .fixed(_, let size): return size
        case .record(_, let fields):
            // A record that contains itself is at least as big as its other fields.
            guard visiting.insert(index).inserted else { return 0 }
            defer { visiting.remove(index) }
            return fields.reduce(0) { $0 + minimumSize(of: $1.type, visiting: &visiting) }
        }
    }
}
