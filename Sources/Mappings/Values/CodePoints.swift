extension String {
    /// Whether both strings hold the same code points, in the same order.
    ///
    /// Swift's `==` compares by canonical equivalence, so `"é"` written as U+00E9 equals `"é"`
    /// written as `e` + U+0301. Payload keys are data: two keys that differ in their code points
    /// are two keys, as every JSON reader outside Swift sees them.
    @inline(__always)
    func hasSameCodePoints(as other: String) -> Bool {
        var a = self
        var b = other
        return a.withUTF8 { x in b.withUTF8 { y in x.count == y.count && x.elementsEqual(y) } }
    }
}

/// A string compared and hashed by its code points (see `hasSameCodePoints(as:)`): the key
/// of an index over payload keys.
struct CodePointKey: Hashable {
    let text: String

    static func == (lhs: CodePointKey, rhs: CodePointKey) -> Bool { lhs.text.hasSameCodePoints(as: rhs.text) }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
