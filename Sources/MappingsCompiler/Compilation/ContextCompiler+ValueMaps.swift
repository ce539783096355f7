import MappingsJSON
import MappingsModel

/// Compiling `@valueMap` and `@reverseValue`: the source values an entry translates before
/// conversion, checked against the entry's type, and the one key `serialize` writes back for
/// each mapped value.
extension ContextCompiler {
    /// The entry's compiled `@valueMap`, if it writes one. Reports a map that is not an object
    /// of scalars, a mapped value the entry's type does not allow, two keys mapping to one value
    /// without `@reverseValue` choosing between them, and a `@reverseValue` without a map or
    /// naming what the map does not say.
    mutating func valueMap(
        _ options: EntryOptions, type: TypeReference?, property: String, valid: inout Bool
    ) -> ValueMap? {
        guard let option = options.valueMap else {
            if let reverse = options.reverseValue {
                diagnostics.append(
                    Diagnostic(
                        message: "\"@reverseValue\" chooses what \"@valueMap\" writes back, but this entry has no map",
                        location: reverse.keyLocation, help: "add \"@valueMap\", or remove \"@reverseValue\""))
                valid = false
            }
            return nil
        }
        guard let members = option.value.members else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@valueMap\" takes an object of source values to values, not \(option.value.typeName)",
                    location: option.value.location, help: "for example { \"A\": \"active\", \"S\": \"suspended\" }"))
            valid = false
            return nil
        }
        if options.object != nil {
            diagnostics.append(
                Diagnostic(
                    message: "\"@valueMap\" translates values, but \"\(property)\" maps objects with \"@object\"",
                    location: option.keyLocation, help: "remove \"@valueMap\", or map the values with a context"))
            valid = false
            return nil
        }
        let element = type.map(\.elementType)
        if case .model(let name)? = element {
            diagnostics.append(
                Diagnostic(
                    message: "\"@valueMap\" translates values, but \"\(property)\" holds \(name) objects",
                    location: option.keyLocation,
                    help: "remove \"@valueMap\", and map the objects with \"@object\": { \"@mappings\": … }"))
            valid = false
            return nil
        }
        var pairs: [(key: String, value: JSONValue)] = []
        var held: [(key: SyntaxMember, value: Value)] = []
        var mapsWell = true
        for member in members {
            let json = member.value.jsonValue
            switch json {
            case .string, .integer, .double, .number, .bool: break
            default:
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"@valueMap\" maps \"\(member.key)\" to \(member.value.typeName): values are strings, numbers or booleans",
                        location: member.value.location,
                        help:
                            "to build objects, map them with \"@object\"; to compute values, use \"@transformSelector\""
                    ))
                mapsWell = false
                continue
            }
            guard let value = mappedValue(json, of: member, to: element) else {
                mapsWell = false
                continue
            }
            pairs.append((member.key, json))
            held.append((member, value))
        }
        // The values that convert are checked for a way back even when others did not.
        let reverse = reverseChoices(held, option: options.reverseValue, forwardOnly: options.forwardOnly)
        guard mapsWell, let reverse else {
            valid = false
            return nil
        }
        return ValueMap(pairs: pairs, reverse: reverse)
    }

    /// A mapped value as the property holds it; `nil` after reporting one its type does not allow.
    private mutating func mappedValue(_ json: JSONValue, of member: SyntaxMember, to type: TypeReference?) -> Value? {
        guard let type, type != .json else { return .json(json) }
        var failures: [ConversionFailure] = []
        let value = converter.convert(json, to: type, failures: &failures)
        guard let failure = failures.first else { return value }
        if case .enumeration(let enumeration) = type, case .string(let text) = json {
            diagnostics.append(
                Diagnostic(
                    message: "\"@valueMap\" maps \"\(member.key)\" to \"\(text)\", which is not a \(enumeration.name)",
                    location: member.value.location,
                    help: Suggestion.help(for: text, among: enumeration.values)
                        ?? "the values of \(enumeration.name) are \(enumeration.listed)"))
        } else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"@valueMap\" maps \"\(member.key)\" to a value that cannot become \(type): \(failure.message)",
                    location: member.value.location,
                    help: "map it to a \(type), as the property holds it"))
        }
        return nil
    }

    /// Mapped values by what the property holds (`"1"` and `1` are one Int): their texts in
    /// order, and each one's value and keys. Strings by their text (a `JSON` entry's too),
    /// compared by code points.
    private static func grouped(
        _ held: [(key: SyntaxMember, value: Value)]
    ) -> (order: [String], groups: [CodePointKey: (value: Value, keys: [SyntaxMember])]) {
        var order: [String] = []
        var groups: [CodePointKey: (value: Value, keys: [SyntaxMember])] = [:]
        for (key, value) in held {
            let text =
                switch value {
                case .string(let string), .json(.string(let string)): string
                default: JSONWriter.string(value)
                }
            if groups[CodePointKey(text)] == nil {
                order.append(text)
                groups[CodePointKey(text)] = (value, [])
            }
            groups[CodePointKey(text)]?.keys.append(key)
        }
        return (order, groups)
    }

    /// For each mapped value, the key `serialize` writes back: the only key that maps to it, or
    /// the one `@reverseValue` names. `nil` after reporting a value two keys map to that
    /// `@reverseValue` does not settle, or a `@reverseValue` that is not of this map.
    private mutating func reverseChoices(
        _ held: [(key: SyntaxMember, value: Value)], option: SyntaxMember?, forwardOnly: Bool
    ) -> [(held: Value, key: String)]? {
        let (order, groups) = Self.grouped(held)
        var choices: [CodePointKey: String] = [:]
        // Mapped values `@reverseValue` names, rightly or not: not reported again as ambiguous.
        var named: Set<CodePointKey> = []
        var valid = true
        if let option {
            guard let members = option.value.members else {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"@reverseValue\" takes an object of mapped values to the key written back, not \(option.value.typeName)",
                        location: option.value.location, help: "for example { \"active\": \"A\" }"))
                return nil
            }
            for member in members {
                guard let keys = groups[CodePointKey(member.key)]?.keys else {
                    diagnostics.append(
                        Diagnostic(
                            message: "\"@reverseValue\" names \"\(member.key)\", which \"@valueMap\" maps nothing to",
                            location: member.keyLocation,
                            help: (member.key.count > 2 ? Suggestion.help(for: member.key, among: order) : nil)
                                ?? "the mapped values are \(order.map { "\"\($0)\"" }.joined(separator: ", "))"))
                    valid = false
                    continue
                }
                named.insert(CodePointKey(member.key))
                guard let key = member.value.stringValue, keys.contains(where: { $0.key.hasSameCodePoints(as: key) })
                else {
                    let listed = keys.map { "\"\($0.key)\"" }.joined(separator: ", ")
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "\"@reverseValue\" writes \"\(member.key)\" back as \(member.value.jsonValue.jsonText), but \"@valueMap\" maps only \(listed) to it",
                            location: member.value.location, help: "write one of \(listed)"))
                    valid = false
                    continue
                }
                choices[CodePointKey(member.key)] = key
            }
        }
        var reverse: [(held: Value, key: String)] = []
        for text in order {
            guard let group = groups[CodePointKey(text)] else { continue }
            if let choice = choices[CodePointKey(text)] {
                reverse.append((group.value, choice))
            } else if group.keys.count == 1 || named.contains(CodePointKey(text)) || forwardOnly {
                // (A forward-only entry is never written back: any key will do.)
                reverse.append((group.value, group.keys[0].key))
            } else {
                let listed = group.keys.map { "\"\($0.key)\"" }.joined(separator: " and ")
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"@valueMap\" is not one-to-one: \(listed) map to \"\(text)\", and serialize cannot choose",
                        location: group.keys[1].keyLocation,
                        notes: [
                            Diagnostic.Note(
                                message: "\"\(group.keys[0].key)\" maps to it here", location: group.keys[0].keyLocation
                            )
                        ],
                        help:
                            "say which one is written back: \"@reverseValue\": { \"\(text)\": \"\(group.keys[0].key)\" }; or, if the entry is never serialized, \"@reverse\": false"
                    ))
                valid = false
            }
        }
        return valid ? reverse : nil
    }
}
