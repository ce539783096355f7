import Foundation

extension String {
    /// Whether both strings hold the same code points, in the same order.
    ///
    /// Swift's `==` compares by canonical equivalence, so `"é"` written as U+00E9 equals `"é"`
    /// written as `e` + U+0301. Payload keys are data: two keys that differ in their code points
    /// are two keys, as every JSON reader outside Swift sees them.
    ///
    /// Strings with the same code points are canonically equivalent, so Swift's `==` (a byte
    /// comparison for the ASCII keys of most payloads) rules out almost every pair first; only
    /// a pair it finds equal has its bytes compared.
    @inline(__always)
    package func hasSameCodePoints(as other: String) -> Bool {
        guard self == other else { return false }
        return utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
            }
        }.flatMap { $0 } ?? utf8.elementsEqual(other.utf8)
    }
}

/// A string compared and hashed by its code points (see `hasSameCodePoints(as:)`): the key
/// of an index over payload keys, and of every table of values the language compares exactly
/// (enum values, `@valueMap` keys, `@cases`, keys of a `.mappings` object).
package struct CodePointKey: Hashable, Sendable {
    package let text: String

    package init(text: String) { self.text = text }

    package init(_ text: String) { self.text = text }

    package static func == (lhs: CodePointKey, rhs: CodePointKey) -> Bool { lhs.text.hasSameCodePoints(as: rhs.text) }

    package func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
