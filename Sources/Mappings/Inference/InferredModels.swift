import Foundation
import MappingsJSON
import MappingsModel

/// A property's type as `mappings init` writes it: a scalar type name, a model, or a
/// collection of them.
package indirect enum InferredType: Equatable {
    case scalar(String)
    case model(String)
    case array(InferredType, optionalElements: Bool)
    case dictionary(InferredType, optionalValues: Bool)

    /// The type as a `.mappings` file writes it (`[Label]`, `[String: Double?]`).
    package var text: String {
        switch self {
        case .scalar(let name), .model(let name): name
        case .array(let element, let optional): "[" + element.text + (optional ? "?" : "") + "]"
        case .dictionary(let value, let optional): "[String: " + value.text + (optional ? "?" : "") + "]"
        }
    }

    /// The model this type holds, at any depth of collections.
    package var model: String? {
        switch self {
        case .scalar: nil
        case .model(let name): name
        case .array(let element, _): element.model
        case .dictionary(let value, _): value.model
        }
    }

    /// A weaker type that holds more values: what a property falls back to when a sample's
    /// value does not convert to this one.
    package var weaker: InferredType {
        switch self {
        case .scalar("Int"): .scalar("Double")
        case .scalar("Double"): .scalar("Decimal")
        case .scalar("Date"), .scalar("URL"): .scalar("String")
        case .array(let element, let optional) where element != .scalar("JSON"):
            .array(element.weaker, optionalElements: optional)
        case .dictionary(let value, let optional) where value != .scalar("JSON"):
            .dictionary(value.weaker, optionalValues: optional)
        default: .scalar("JSON")
        }
    }
}

/// A property `mappings init` infers: its name, the payload key it reads, its type, and how
/// its dates are written.
package struct InferredProperty: Equatable {
    package var name: String
    package var key: String
    package var type: InferredType
    package var isOptional: Bool
    package var dateFormat: String?
    /// The keys of the objects the key is inside, outermost first, when a flat model reads it
    /// from a nested object (`user.login` → `["user"]`); empty for a key of the model's own object.
    package var parents: [String] = []
    /// How many values the type rests on (neither null nor missing), and how many of the objects
    /// that could hold the key had `null` there or lacked it.
    package var values = 0
    package var absent = 0

    /// Equal when what is written is (evidence aside), the keys by their code points, as the
    /// engine reads them. the keys by their code points (as the engine reads them).
    package static func == (lhs: InferredProperty, rhs: InferredProperty) -> Bool {
        lhs.name == rhs.name && lhs.key.hasSameCodePoints(as: rhs.key) && lhs.type == rhs.type
            && lhs.isOptional == rhs.isOptional && lhs.dateFormat == rhs.dateFormat
            && lhs.parents.elementsEqual(rhs.parents) { $0.hasSameCodePoints(as: $1) }
    }
}

/// A model `mappings init` infers from the objects found at one place of the sample.
package struct InferredModel: Equatable {
    package var name: String
    package var properties: [InferredProperty]
}

/// Names for models and properties made from payload keys: camelCase properties, PascalCase
/// models, each valid in a `.mappings` file and unique where it must be.
package enum InferredNames {
    /// `html_url` → `htmlUrl`, `Content-Type` → `contentType`, `ID` → `id`, `1h` → `_1h`, `+1` → `plus1`;
    /// a key with no letter or digit is `field`.
    package static func property(_ key: String) -> String {
        // GitHub's reactions: "+1" → plus1, "-1" → minus1.
        var key = key
        if key.hasPrefix("+") { key = "plus " + key.dropFirst() }
        if key.hasPrefix("-"), key.dropFirst().first?.isNumber == true { key = "minus " + key.dropFirst() }
        let words = self.words(key)
        guard let first = words.first else { return "field" }
        var name = first.allSatisfy { !$0.isLetter || $0.isUppercase } ? first.lowercased() : lowerFirst(first)
        for word in words.dropFirst() { name += upperFirst(word) }
        if let start = name.unicodeScalars.first, !start.properties.isAlphabetic { name = "_" + name }
        // Composed (NFC): a name is letters, and `e` + U+0301 is a letter and a mark, `é` one letter.
        return name.precomposedStringWithCanonicalMapping
    }

    /// `user` → `User`, `closed_by` → `ClosedBy`; a built-in type's name gets `Object` after it.
    package static func model(_ key: String) -> String {
        let words = self.words(key)
        var name = words.map(upperFirst).joined()
        if name.isEmpty { name = "Item" }
        if let start = name.unicodeScalars.first, !start.properties.isAlphabetic { name = "Model" + name }
        if TypeReference.scalars[name] != nil { name += "Object" }
        return name.precomposedStringWithCanonicalMapping
    }

    /// Why `name` cannot name a project's root model, or `nil` when it can: a model name is a
    /// letter, then letters, digits or `_` (so it names no path either), and no built-in type's.
    ///
    /// ```text
    /// Int is a built-in type: name the model something else, e.g. IntRecord
    /// ```
    package static func problem(withModelName name: String) -> String? {
        guard isModelName(name) else {
            let suggestion = model(name)
            return "a model name is a letter, then letters, digits or _, but got \(InitTexts.string(name))"
                + (isModelName(suggestion) ? " (did you mean '\(suggestion)'?)" : "")
        }
        if TypeReference.scalars[name] != nil {
            return "\(name) is a built-in type: name the model something else, e.g. \(name)Record"
        }
        return nil
    }

    /// Whether `name` is a letter, then letters, digits or `_`.
    package static func isModelName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// The model of one element of an array held at `key`: `labels` → `Label`, `entries` → `Entry`.
    package static func element(_ key: String) -> String {
        model(singular(key))
    }

    /// `issues` → `issue`, `categories` → `category`, `addresses` → `address`; other words as they are.
    package static func singular(_ word: String) -> String {
        let lower = word.lowercased()
        if lower.hasSuffix("ies"), word.count > 4 { return String(word.dropLast(3)) + "y" }
        for ending in ["sses", "shes", "ches", "xes"] where lower.hasSuffix(ending) {
            return String(word.dropLast(2))
        }
        if lower.hasSuffix("s"), !lower.hasSuffix("ss"), !lower.hasSuffix("us"), !lower.hasSuffix("is"),
            word.count > 3
        {
            return String(word.dropLast())
        }
        return word
    }

    /// `name` when `taken` does not hold it, else `name2`, `name3`…
    package static func unique(_ name: String, in taken: Set<String>) -> String {
        guard taken.contains(name) else { return name }
        var number = 2
        while taken.contains(name + String(number)) { number += 1 }
        return name + String(number)
    }

    /// The words of a key: runs of letters and digits, split at other characters and where a
    /// lower-case letter meets an upper-case one (`createdAt` → `created`, `At`).
    static func words(_ key: String) -> [String] {
        var words: [String] = []
        var word = ""
        var previous: Character?
        for character in key {
            guard character.isLetter || character.isNumber else {
                if !word.isEmpty { words.append(word) }
                word = ""
                previous = nil
                continue
            }
            if let previous, previous.isLowercase, character.isUppercase, !word.isEmpty {
                words.append(word)
                word = ""
            }
            word.append(character)
            previous = character
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    static func upperFirst(_ word: String) -> String { word.prefix(1).uppercased() + word.dropFirst() }
    static func lowerFirst(_ word: String) -> String { word.prefix(1).lowercased() + word.dropFirst() }
}
