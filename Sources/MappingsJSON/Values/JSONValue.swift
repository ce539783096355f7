/// A JSON value, as read from a payload or from a `.mappings` file.
///
/// Numbers keep their identity and their digits: an integer literal that fits in 64 bits is an
/// exact `integer`, a literal a double holds and the writer spells alike is a `double`, and
/// any other (beyond Int64, more digits than a double keeps, `1.0`, `1e2`) a `number` that keeps
/// its literal. Objects keep their key order.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    /// A number kept as written: see `JSONNumber`.
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The name of the value's JSON type, as messages say it (`string`, `number`, …).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .double, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// A JSON object whose members keep the order they were written in.
public struct JSONObject: Sendable, Hashable {
    /// The members, in order.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// The keys the text of this object wrote more than once, each once, in the order their
    /// first repeat came (empty almost always). The parser keeps a repeated key's last value
    /// among `members` and names the key here, so that mapping reports it (`duplicate key`)
    /// instead of silently choosing: other readers of the same text may take the first.
    package private(set) var duplicateKeys: [String] = []

    /// Whether no two members share a key, as in every object the parser makes (it keeps the
    /// last of a repeated key): a lookup may then take a member found anywhere, not only the first.
    private var keysAreUnique: Bool {
        flags & Self.uniqueKeys != 0
    }

    /// Whether this is an empty Lua table a script left unmarked (neither `json.array()` nor
    /// `json.object()`): a value of no kind, which converts to whatever the property needs
    /// (an empty array or set as well as an empty dictionary or object). Never set for JSON text,
    /// where `{}` is an object.
    package var isKindlessEmpty: Bool {
        flags & Self.kindless != 0
    }

    // Last: with one byte of flags at the end, an object is 17 bytes, and a JSONValue no wider than a String's 16 plus a tag.
    private var flags: UInt8
    private static let uniqueKeys: UInt8 = 1
    private static let kindless: UInt8 = 2

    /// An object with these members, in this order.
    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
        flags = members.count < 2 ? Self.uniqueKeys : 0
    }

    /// An empty table of no kind, as a script returned it (`isKindlessEmpty`).
    package static var kindlessEmpty: JSONObject {
        var object = JSONObject()
        object.flags |= kindless
        return object
    }

    /// An object whose members are known to have distinct keys; `duplicateKeys` are those its
    /// text repeated (the members hold each one's last value).
    package init(uniqueMembers members: [(key: String, value: JSONValue)], duplicateKeys: [String] = []) {
        self.members = members
        flags = Self.uniqueKeys
        self.duplicateKeys = duplicateKeys
    }

    /// The value for `key`, or `nil` when the object has no such member. Keys are compared by
    /// their code points, not by canonical equivalence.
    public subscript(key: String) -> JSONValue? {
        get {
            for index in members.indices where members[index].key.hasSameCodePoints(as: key) {
                return members[index].value
            }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { $0.key.hasSameCodePoints(as: key) }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// Where `key` is among the members, looked for at `hint` first, then from the start: a
    /// caller reading keys in the order the payload wrote them finds each with one comparison.
    package func position(of key: String, from hint: Int) -> Int? {
        if keysAreUnique, hint < members.count, members[hint].key.hasSameCodePoints(as: key) { return hint }
        return members.firstIndex(where: { $0.key.hasSameCodePoints(as: key) })
    }

    /// How many members the object has.
    public var count: Int { members.count }
    /// The keys, in order.
    public var keys: [String] { members.map(\.key) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key.hasSameCodePoints(as: $1.key) && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}
