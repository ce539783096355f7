package import MappingsEngine
package import MappingsJSON

/// The context's Spark schema (`Catalog.sparkSchema(of:)`, which already resolves nested
/// models, unions, recursion and collections) read back into a flat node table, with the two
/// types Spark keeps as strings named again: a field marked `{"mappings.type": "Decimal"}`
/// holds decimals, one marked `"JSON"` holds any JSON value.
extension ValueSchema {
    /// The schema of `spark` (a `StructType` in its JSON form); `nil` when it holds a type
    /// this reading does not know.
    package init?(spark: JSONValue) {
        var nodes = [Node(kind: .structure, nullable: false)]
        var names: [UInt8] = []
        guard Self.read(spark, marking: nil, at: 0, into: &nodes, names: &names) else { return nil }
        self.init(nodes: nodes, names: names)
    }

    /// Reads `type` into `nodes[index]` (its kind and children); `marking` is the field's
    /// `mappings.type`, which applies to the strings of its lists and maps too.
    private static func read(
        _ type: JSONValue, marking: String?, at index: Int, into nodes: inout [Node], names: inout [UInt8]
    ) -> Bool {
        switch type {
        case .string("long"): nodes[index].kind = .integer
        case .string("double"): nodes[index].kind = .double
        case .string("boolean"): nodes[index].kind = .boolean
        case .string("timestamp"): nodes[index].kind = .date
        case .string("string"):
            nodes[index].kind = marking == "Decimal" ? .decimal : marking == "JSON" ? .json : .string
        case .object(let object):
            switch object["type"] {
            case .string("struct")?:
                guard case .array(let fields)? = object["fields"] else { return false }
                let first = nodes.count
                nodes[index].kind = .structure
                nodes[index].first = Int32(first)
                nodes[index].count = Int32(fields.count)
                var markings: [String?] = []
                for field in fields {
                    guard case .object(let member) = field, case .string(let name)? = member["name"] else {
                        return false
                    }
                    var marked: String?
                    if case .object(let metadata)? = member["metadata"],
                        case .string(let mark)? = metadata["mappings.type"]
                    {
                        marked = mark
                    }
                    markings.append(marked)
                    let nullable = member["nullable"] != .bool(false)
                    nodes.append(
                        Node(
                            kind: .json, nameStart: Int32(names.count), nameCount: Int32(name.utf8.count),
                            nullable: nullable))
                    names += name.utf8
                }
                for (offset, field) in fields.enumerated() {
                    guard case .object(let member) = field, let type = member["type"],
                        read(type, marking: markings[offset], at: first + offset, into: &nodes, names: &names)
                    else { return false }
                }
            case .string("array")?:
                guard let element = object["elementType"] else { return false }
                nodes[index].kind = .list
                nodes[index].first = Int32(nodes.count)
                nodes.append(Node(kind: .json, nullable: object["containsNull"] != .bool(false)))
                return read(element, marking: marking, at: nodes.count - 1, into: &nodes, names: &names)
            case .string("map")?:
                guard let value = object["valueType"] else { return false }
                nodes[index].kind = .map
                nodes[index].first = Int32(nodes.count)
                nodes.append(Node(kind: .json, nullable: object["valueContainsNull"] != .bool(false)))
                return read(value, marking: marking, at: nodes.count - 1, into: &nodes, names: &names)
            default: return false
            }
        default: return false
        }
        return true
    }
}
