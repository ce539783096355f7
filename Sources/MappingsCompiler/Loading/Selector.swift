import Foundation
import MappingsJSON
import MappingsModel

/// A selector key such as `@when apiVersion >= 2`, parsed, with its test against traits.
///
/// The AppCoreKit spellings are aliases over traits:
/// `@debug` is `@when build == debug`, `@release` is `@when build != debug`,
/// `@ios <op> <version>` is `@when ios <op> <version>`, `@iphone` is `@when device == iphone`
/// and `@ipad` is `@when device == ipad`.
struct Selector: Sendable, Equatable {
    enum Operator: String, Sendable, CaseIterable {
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case greater = ">"
    }

    enum Condition: Sendable, Equatable {
        /// The trait is set to something other than `false`, `no`, `off`, `0` or the empty string.
        case isSet(String)
        case compare(String, Operator, String)
    }

    var condition: Condition

    /// The keywords that start a selector key, for recognizing one.
    static let keywords = ["@when", "@debug", "@release", "@ios", "@iphone", "@iPhone", "@ipad", "@iPad"]

    /// Whether `key` is meant as a selector (it may still be malformed).
    static func isSelectorKey(_ key: String) -> Bool {
        for keyword in keywords where key.hasPrefix(keyword) {
            // `@when x` and `@ios>=7` are selectors; `@whenever` and `@iphone5` are not.
            guard let next = key.dropFirst(keyword.count).first else { return true }
            if !next.isLetter && !next.isNumber && next != "_" { return true }
        }
        return false
    }

    /// Parses a selector key; throws a message (with a help text) when it is malformed.
    init(key: String) throws(SelectorSyntaxError) {
        let trimmed = key.trimmingCharacters(in: .whitespaces)
        switch trimmed {
        case "@debug": condition = .compare("build", .equal, "debug"); return
        case "@release": condition = .compare("build", .notEqual, "debug"); return
        case "@iphone", "@iPhone": condition = .compare("device", .equal, "iphone"); return
        case "@ipad", "@iPad": condition = .compare("device", .equal, "ipad"); return
        default: break
        }
        if trimmed.hasPrefix("@when") {
            let rest = trimmed.dropFirst(5).trimmingCharacters(in: .whitespaces)
            condition = try Self.parseCondition(rest, key: key)
        } else if trimmed.hasPrefix("@ios") {
            let rest = trimmed.dropFirst(4).trimmingCharacters(in: .whitespaces)
            let iosHelp = "write \"@ios <op> <version>\", such as \"@ios >= 7.0\""
            if rest.isEmpty {
                condition = .isSet("ios")
            } else {
                guard let parsed = try? Self.parseCondition("ios " + rest, key: key), parsed != .isSet("ios") else {
                    throw SelectorSyntaxError(message: "malformed selector \"\(key)\"", help: iosHelp)
                }
                condition = parsed
            }
        } else {
            throw SelectorSyntaxError(message: "malformed selector \"\(key)\"", help: Self.syntaxHelp)
        }
    }

    static let syntaxHelp = "write \"@when <trait>\" or \"@when <trait> <op> <value>\" with <op> one of < <= > >= == !="

    private static func parseCondition(_ text: String, key: String) throws(SelectorSyntaxError) -> Condition {
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count, Traits.isNameCharacter(scalars[i]) { i += 1 }
        let trait = String(String.UnicodeScalarView(scalars[0..<i]))
        guard !trait.isEmpty, !(scalars.first.map { ("0"..."9").contains($0) } ?? true) else {
            throw SelectorSyntaxError(message: "malformed selector \"\(key)\": it names no trait", help: syntaxHelp)
        }
        let rest = String(String.UnicodeScalarView(scalars[i...])).trimmingCharacters(in: .whitespaces)
        if rest.isEmpty { return .isSet(trait) }
        var op: Operator?
        var operand = Substring(rest)
        for candidate in Operator.allCases where rest.hasPrefix(candidate.rawValue) {
            op = candidate
            operand = rest.dropFirst(candidate.rawValue.count)
            break
        }
        if op == nil, rest.hasPrefix("="), !rest.hasPrefix("==") {
            op = .equal
            operand = rest.dropFirst()
        }
        guard let op else {
            throw SelectorSyntaxError(
                message: "malformed selector \"\(key)\": \"\(rest)\" is not a comparison", help: syntaxHelp)
        }
        var value = operand.trimmingCharacters(in: .whitespaces)
        if value.count >= 2, value.first == "\"" && value.last == "\"" || value.first == "'" && value.last == "'" {
            value = String(value.dropFirst().dropLast())
        }
        if let first = value.first, "<>=!".contains(first) {
            throw SelectorSyntaxError(
                message: "malformed selector \"\(key)\": \"\(rest)\" is not a comparison", help: syntaxHelp)
        }
        guard !value.isEmpty else {
            throw SelectorSyntaxError(
                message: "malformed selector \"\(key)\": nothing to compare \"\(trait)\" with", help: syntaxHelp)
        }
        return .compare(trait, op, value)
    }

    /// Whether the selector holds for `traits`.
    ///
    /// An unset trait makes every comparison false except `!=`. Two values that both look like
    /// versions (`2`, `2.10`, `7.0.1`) compare component by component as integers, so
    /// `2.10 > 2.9`; other values compare as strings.
    func holds(in traits: Traits) -> Bool {
        switch condition {
        case .isSet(let trait):
            guard let value = traits[trait] else { return false }
            return !["false", "no", "off", "0", ""].contains(value.lowercased())
        case .compare(let trait, let op, let expected):
            guard let actual = traits[trait] else { return op == .notEqual }
            let order = Self.compare(actual, expected)
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            case .greaterOrEqual: return order >= 0
            case .equal: return order == 0
            case .notEqual: return order != 0
            }
        }
    }

    /// Compares two trait values: component-wise when both are versions, else as strings.
    static func compare(_ a: String, _ b: String) -> Int {
        if let left = versionComponents(a), let right = versionComponents(b) {
            for index in 0..<max(left.count, right.count) {
                let l = index < left.count ? left[index] : 0
                let r = index < right.count ? right[index] : 0
                if l != r { return l < r ? -1 : 1 }
            }
            return 0
        }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    private static func versionComponents(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(part) else {
                return nil
            }
            numbers.append(number)
        }
        return numbers
    }
}

/// Why a selector key could not be parsed.
struct SelectorSyntaxError: Error {
    var message: String
    var help: String
}
