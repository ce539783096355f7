/// Payload path text: `$.user.name`, `$.tags[3]`, `$["odd key"]`.
package enum PathText {
    package static func member(_ key: String) -> String {
        let plain =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy {
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "$"
            }
        if plain { return "." + key }
        return "[\(quoted(key))]"
    }

    /// `key` as a JSON string literal, invisible characters escaped (`JSONWriter.safeText`).
    package static func quoted(_ key: String) -> String {
        var bytes: [UInt8] = []
        JSONWriter.writeSafeString(key, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends a path relative to a value (`[2].name`) to that value's path. When the value
    /// came from a fan-out (`$.items[*].name`), each leading index of `relative` names the
    /// element of one `[*]`, left to right: `[2]` after `$.items[*].name` is `$.items[2].name`.
    package static func appending(_ relative: String, to path: String) -> String {
        var path = Array(path.utf8)
        var rest = Substring(relative)
        var searchFrom = 0
        while rest.hasPrefix("["), let close = rest.firstIndex(of: "]"),
            rest[rest.index(after: rest.startIndex)..<close].allSatisfy(\.isNumber),
            let star = wildcard(in: path, from: searchFrom)
        {
            let index = Array(rest[...close].utf8)
            path.replaceSubrange(star..<star + 3, with: index)
            searchFrom = star + index.count
            rest = rest[rest.index(after: close)...]
        }
        return String(decoding: path, as: UTF8.self) + rest
    }

    /// The offset of the first `[*]` at or after `start` that is not inside a quoted key.
    private static func wildcard(in path: [UInt8], from start: Int) -> Int? {
        var inString = false
        var escaped = false
        var position = start
        while position < path.count {
            let byte = path[position]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "["), position + 2 < path.count, path[position + 1] == UInt8(ascii: "*"),
                path[position + 2] == UInt8(ascii: "]")
            {
                return position
            }
            position += 1
        }
        return nil
    }
}
