package import MappingsJSON
package import MappingsModel

/// How an entry of a union type (`Circle | Rect`) chooses the member each payload object
/// builds: the value at `@discriminator`, looked up in `@cases`, else `@otherwise`.
///
/// A discriminator value matches the case that spells it: a string its own text, a number
/// its digits as the payload writes them (`1` matches the case `"1"`, `1.0` does not), a
/// boolean `"true"` or `"false"`; an object, an array, null or a missing value matches none.
/// The table is built once: choosing hashes the value.
package struct UnionRule: Sendable, Hashable {
    /// One case: the discriminator value written, and the context that maps it.
    package struct Case: Sendable, Hashable {
        /// The value as `@cases` writes it; empty for `@otherwise`.
        package let value: String
        /// The model the context builds (a member of the union).
        package let model: String
        /// Index of the context in `Catalog.contexts`.
        package let context: Int
    }

    /// The key path, inside each object, of the value that chooses.
    package let discriminator: PayloadKeyPath
    /// The cases in the order `@cases` writes them.
    package let cases: [Case]
    /// `@otherwise`: what an unknown or missing value maps with; `nil` makes it an issue.
    package let otherwise: Case?
    /// Case values, compared by code points → their index in `cases`.
    private let positions: [CodePointKey: Int]

    package init(discriminator: PayloadKeyPath, cases: [Case], otherwise: Case?) {
        self.discriminator = discriminator
        self.cases = cases
        self.otherwise = otherwise
        self.positions = Dictionary(
            cases.enumerated().map { (CodePointKey($1.value), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The case `value` (found at the discriminator) names, `nil` when it names none.
    package func chosen(by value: JSONValue) -> Case? {
        guard let text = UnionChoice.caseText(of: value) else { return nil }
        return positions[CodePointKey(text)].map { cases[$0] }
    }

    /// The same choice by model names, for conversion reading an object back.
    package var choice: UnionChoice {
        UnionChoice(
            keys: discriminator.keys, cases: cases.map { ($0.value, $0.model) }, otherwise: otherwise?.model)
    }

    /// For `serialize`: the first case whose context builds `model`; `nil` when only
    /// `@otherwise` builds it (no discriminator value is known then).
    package func firstCase(building model: String) -> Case? {
        cases.first { $0.model == model }
    }

    /// The context that writes an object of `model` back: its case's, else `@otherwise`'s.
    package func context(building model: String) -> Int? {
        firstCase(building: model)?.context ?? (otherwise?.model == model ? otherwise?.context : nil)
    }

    /// The discriminator value `serialize` writes for a case: as `@cases` spells it, a value that
    /// reads as a JSON number or boolean as that number or boolean.
    package func written(_ chosen: Case) -> JSONValue {
        ValueMap.sourceValue(of: chosen.value)
    }

    /// The contexts of the cases and of `@otherwise`, each once.
    package var contexts: [Int] {
        var seen: Set<Int> = []
        return (cases + (otherwise.map { [$0] } ?? [])).map(\.context).filter { seen.insert($0).inserted }
    }

    /// The case values, as messages list them: `"circle", "rect"`.
    package var listed: String {
        cases.map { "\"\($0.value)\"" }.joined(separator: ", ")
    }

    package static func == (lhs: UnionRule, rhs: UnionRule) -> Bool {
        lhs.discriminator == rhs.discriminator && lhs.cases == rhs.cases && lhs.otherwise == rhs.otherwise
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(discriminator)
        hasher.combine(cases)
    }
}
