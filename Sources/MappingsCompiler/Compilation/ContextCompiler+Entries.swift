import MappingsJSON
import MappingsModel

/// Compiling one entry of a context into a `Rule`: its target, then its options, then the
/// checks between them, in the order their reports appear.
extension ContextCompiler {
    /// The rule `member` declares; `nil` once anything about it was reported.
    mutating func compileEntry(_ member: SyntaxMember, model: String?) -> Rule? {
        guard let target = targetPath(member.key, at: member.keyLocation, model: model),
            let options = entryOptions(member, model: model, declaredType: target.type)
        else { return nil }
        let type = options.type ?? target.type
        var valid = options.isValid
        let transformer = transformer(options, valid: &valid)
        let reverseTransformer = reverseTransformer(options, undoing: transformer, valid: &valid)
        let flags = collectionFlags(options, type: type, property: member.key, valid: &valid)
        checkDateFormat(options.dateFormat, type: type, entry: member, valid: &valid)
        checkDateFormat(
            options.dateRange.map { [$0.text] }, type: type, entry: member, valid: &valid, option: "@dateRange")
        let object = objectRule(options.object, type: type, property: member.key, entry: member, valid: &valid)
        let defaultValue = defaultValue(options, type: type, property: member.key, valid: &valid)
        let valueMap = valueMap(options, type: type, property: member.key, valid: &valid)
        let policies = policies(options, type: type, object: object, property: member.key, valid: &valid)
        let reverseFanOut = reverseFanOut(options, type: type, property: member.key, valid: &valid)
        checkForwardOnly(options, valid: &valid)
        let lookup = tableLookup(options.lookup, valid: &valid)
        guard valid else { return nil }
        var rule = Rule(
            target: target.path, source: options.source, fallbacks: options.fallbacks,
            isOptional: options.isOptional || options.defaultValue != nil,
            defaultValue: defaultValue, defaultJSON: options.defaultValue?.jsonValue, transformer: transformer,
            transform: nil, reverseTransformer: reverseTransformer, reverseTransform: nil, object: object,
            clearContent: flags.clearContent, insertContentAtBegin: flags.insertContentAtBegin, type: type,
            dateFormat: options.dateFormat,
            dateFormats: options.dateFormat == nil && options.dateRange == nil
                ? nil : DateFormats(options.dateFormat, range: options.dateRange),
            provenance: provenance(member.keyLocation, member.value),
            valueMap: valueMap)
        rule.policies = policies
        rule.reverseFanOut = reverseFanOut
        // A cell names no key (two rows may share it): serialize leaves a `@lookup` entry out.
        rule.isForwardOnly = options.forwardOnly || lookup != nil
        rule.selection = options.selection
        rule.lookup = lookup
        return rule
    }

    /// Reports what says how serialize writes an entry back on an entry that `"@reverse": false`
    /// leaves out of serialize.
    private mutating func checkForwardOnly(_ options: EntryOptions, valid: inout Bool) {
        guard options.forwardOnly, let reverse = options.reverse else { return }
        for option in [
            options.reverseTransformSelector, options.reverseLua, options.reverseValue, options.reverseFanOut,
        ]
        .compactMap({ $0 }) {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"\(option.key)\" says how serialize writes the entry back, but \"@reverse\": false leaves it out of serialize",
                    location: option.keyLocation,
                    notes: [Diagnostic.Note(message: "the entry is forward-only here", location: reverse.keyLocation)],
                    help: "remove \"\(option.key)\", or \"@reverse\": false"))
            valid = false
        }
    }

    /// `@reverseFanOut`, read as a boolean; reports it on an entry whose key path does not end
    /// in two keys (there is no key before the last to fan out at), or whose type is no collection.
    private mutating func reverseFanOut(
        _ options: EntryOptions, type: TypeReference?, property: String, valid: inout Bool
    ) -> Bool? {
        guard let option = options.reverseFanOut else { return nil }
        guard let value = boolean(option) else {
            valid = false
            return nil
        }
        let components = options.source.components
        let endsInTwoKeys =
            components.count >= 2 && components.suffix(2).allSatisfy { if case .key = $0 { true } else { false } }
        if !endsInTwoKeys {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"@reverseFanOut\" says how serialize writes a key path of two keys or more, but \"\(property)\" reads \"\(options.source)\"",
                    location: option.keyLocation,
                    help: "remove \"@reverseFanOut\": a key path of one key is written where it is read"))
            valid = false
        } else if let type, !type.isCollection, type.unwrapped != .json {
            diagnostics.append(
                Diagnostic(
                    message: "\"@reverseFanOut\" applies to collections, but \"\(property)\" is \(type)",
                    location: option.keyLocation,
                    help: "remove \"@reverseFanOut\": a single value is written at its key path"))
            valid = false
        }
        return value
    }

    /// The transformer `@transformClass` and `@transformSelector` name together, with
    /// `@transformUserData`; reports one without the other, and user data for no transformer.
    private mutating func transformer(_ options: EntryOptions, valid: inout Bool) -> TransformerReference? {
        if let lua = options.lua {
            let named = [options.transformClass, options.transformSelector].compactMap { $0 }
            if let first = named.first {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"@lua\" and \(named.map { "\"\($0.key)\"" }.joined(separator: " and ")) both say how the value is transformed",
                        location: first.keyLocation,
                        notes: [Diagnostic.Note(message: "the inline code is here", location: lua.keyLocation)],
                        help:
                            "keep one: remove \(named.map { "\"\($0.key)\"" }.joined(separator: " and ")), or \"@lua\"")
                )
                valid = false
            }
            guard let code = inlineLua(lua) else {
                valid = false
                return nil
            }
            return TransformerReference(inline: code, userData: options.transformUserData?.value.jsonValue)
        }
        switch (options.transformClass, options.transformSelector) {
        case (let classMember?, let selectorMember?):
            let className = nonEmptyString(classMember)
            let selector = nonEmptyString(selectorMember)
            guard let className, let selector else {
                valid = false
                return nil
            }
            return TransformerReference(
                className: className, selector: selector, userData: options.transformUserData?.value.jsonValue)
        case (let only?, nil), (nil, let only?):
            let missing = only.key == "@transformClass" ? "@transformSelector" : "@transformClass"
            diagnostics.append(
                Diagnostic(
                    message: "\"\(only.key)\" needs \"\(missing)\" beside it", location: only.keyLocation,
                    help: "a transformer is named by both its class and its selector"))
            valid = false
        case (nil, nil):
            if let userData = options.transformUserData {
                diagnostics.append(
                    Diagnostic(
                        message: "\"@transformUserData\" is handed to a transformer, but this entry names none",
                        location: userData.keyLocation,
                        help: "add \"@lua\", or \"@transformClass\" and \"@transformSelector\""))
                valid = false
            }
        }
        return nil
    }

    /// The transformer `@reverseTransformSelector` names: the same class and user data as
    /// `transformer`, another selector; reports it on an entry that names no transformer.
    private mutating func reverseTransformer(
        _ options: EntryOptions, undoing transformer: TransformerReference?, valid: inout Bool
    ) -> TransformerReference? {
        if let reverseLua = options.reverseLua {
            guard options.lua != nil else {
                diagnostics.append(
                    Diagnostic(
                        message: "\"@reverseLua\" undoes \"@lua\", but this entry has none",
                        location: reverseLua.keyLocation,
                        help: options.transformClass != nil
                            ? "a named transformer is undone by \"@reverseTransformSelector\""
                            : "add \"@lua\": the code that maps the value forward"))
                valid = false
                return nil
            }
            if let selector = options.reverseTransformSelector {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"@reverseLua\" and \"@reverseTransformSelector\" both say how serialize undoes the value",
                        location: selector.keyLocation, help: "keep \"@reverseLua\" beside \"@lua\""))
                valid = false
                return nil
            }
            guard let code = inlineLua(reverseLua) else {
                valid = false
                return nil
            }
            return TransformerReference(inline: code, userData: transformer?.userData)
        }
        guard let reverseSelector = options.reverseTransformSelector else { return nil }
        if options.lua != nil {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"@reverseTransformSelector\" names a function of \"@transformClass\", but this entry transforms with \"@lua\"",
                    location: reverseSelector.keyLocation, help: "did you mean \"@reverseLua\"?"))
            valid = false
            return nil
        }
        if let transformer {
            guard let selector = nonEmptyString(reverseSelector) else {
                valid = false
                return nil
            }
            return TransformerReference(
                className: transformer.className, selector: selector, userData: transformer.userData)
        }
        if options.transformClass == nil && options.transformSelector == nil {
            diagnostics.append(
                Diagnostic(
                    message: "\"@reverseTransformSelector\" undoes a transformer, but this entry names none",
                    location: reverseSelector.keyLocation,
                    help: "add \"@transformClass\" and \"@transformSelector\""))
            valid = false
        }
        return nil
    }

    /// `@clearContent` and `@insertContentAtBegin`, read as booleans; reports either set on a
    /// property that is no collection (a dictionary may be cleared, and JSON may be either).
    private mutating func collectionFlags(
        _ options: EntryOptions, type: TypeReference?, property: String, valid: inout Bool
    ) -> (clearContent: Bool, insertContentAtBegin: Bool) {
        var flags = (clearContent: false, insertContentAtBegin: false)
        for flag in [options.clearContent, options.insertContentAtBegin].compactMap({ $0 }) {
            guard let value = boolean(flag) else {
                valid = false
                continue
            }
            if flag.key == "@clearContent" { flags.clearContent = value } else { flags.insertContentAtBegin = value }
            let clearsDictionary =
                if case .dictionary? = type?.unwrapped { flag.key == "@clearContent" } else { false }
            if value, let type, !type.isCollection, !clearsDictionary, type.unwrapped != .json {
                diagnostics.append(
                    Diagnostic(
                        message: "\"\(flag.key)\" applies to collections, but \"\(property)\" is \(type)",
                        location: flag.keyLocation,
                        help: "remove \"\(flag.key)\": a single value is replaced each time the entry maps"))
                valid = false
            }
        }
        return flags
    }

    /// Reports a `@dateFormat` on an entry without a type, or whose type holds no Date.
    private mutating func checkDateFormat(
        _ dateFormat: [String]?, type: TypeReference?, entry: SyntaxMember, valid: inout Bool,
        option: String = "@dateFormat"
    ) {
        guard let dateFormat else { return }
        guard let type else {
            diagnostics.append(
                Diagnostic(
                    message: "\"\(option)\" needs a Date, but \"\(entry.key)\" has no type",
                    location: entry.keyLocation,
                    help: "add \"@type\": \"Date\" beside \"\(option)\""))
            valid = false
            return
        }
        if type.elementType != .date {
            diagnostics.append(
                Diagnostic(
                    message: "\"\(option)\" applies to dates, but \"\(entry.key)\" is \(type)",
                    location: entry.keyLocation,
                    help: "remove \"\(option)\" (\(dateFormat.joined(separator: ", "))), or map into a Date"))
            valid = false
        }
    }

    /// The rule for the entry's `@object`, if it writes one.
    private mutating func objectRule(
        _ member: SyntaxMember?, type: TypeReference?, property: String, entry: SyntaxMember, valid: inout Bool
    ) -> ObjectRule? {
        guard let member else {
            if let type, Self.unionMembers(of: type) != nil {
                diagnostics.append(
                    Diagnostic(
                        message: "\"\(property)\" is \(type): an entry of a union chooses each object's member",
                        location: entry.keyLocation,
                        help:
                            "add \"@object\": { \"@discriminator\": \"type\", \"@cases\": { \"circle\": \"$Circle\", … } }"
                    ))
                valid = false
            }
            return nil
        }
        let object = compileObject(member, propertyType: type, property: property)
        if object == nil { valid = false }
        return object
    }

    /// `@defaultValue`, converted to the entry's type (JSON without one); reports a default
    /// beside `"@optional": false`, and one that does not convert.
    private mutating func defaultValue(
        _ options: EntryOptions, type: TypeReference?, property: String, valid: inout Bool
    ) -> Value? {
        guard let node = options.defaultValue else { return nil }
        if let explicitRequired = options.explicitRequired {
            diagnostics.append(
                Diagnostic(
                    message: "\"@defaultValue\" makes an entry optional, but \"@optional\" is false",
                    location: explicitRequired, help: "remove \"@optional\": false"))
            valid = false
        }
        var failures: [ConversionFailure] = []
        let converted = converter.convert(
            node.jsonValue, to: type ?? .json, dateFormat: options.dateFormat.flatMap(DateFormats.init),
            failures: &failures)
        guard let failure = failures.first else { return converted }
        let place = failure.relativePath.isEmpty ? "" : " (at \(failure.relativePath))"
        diagnostics.append(
            Diagnostic(
                message:
                    "the default value of \"\(property)\" cannot become \(type ?? .json)\(place): \(failure.message)",
                location: node.location,
                help: "write a default that converts to \(type ?? .json), or remove \"@defaultValue\""))
        valid = false
        return nil
    }

    /// The inline code `member` writes (`@lua`, `@reverseLua`), with the prelude of its file;
    /// `nil` after reporting a value that is no code.
    mutating func inlineLua(_ member: SyntaxMember) -> InlineLua? {
        guard let code = member.value.stringValue, !code.allSatisfy(\.isWhitespace) else {
            let found = member.value.stringValue == nil ? member.value.typeName : "an empty string"
            diagnostics.append(
                Diagnostic(
                    message: "\"\(member.key)\" takes Lua code (a string), not \(found)",
                    location: member.value.location,
                    help: "an expression of `value`, such as \"value:lower()\", or statements ending in `return`"))
            return nil
        }
        return InlineLua(
            keyword: member.key, code: InlineLuaCode(member.value, code: code, texts: texts),
            prelude: preludes[member.value.location.file])
    }
}
