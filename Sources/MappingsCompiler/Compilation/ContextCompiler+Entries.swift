import MappingsJSON
import MappingsModel

/// Compiling one entry of a context into a `Rule`.
extension ContextCompiler {
    mutating func compileEntry(_ member: SyntaxMember, model: String?) -> Rule? {
        guard let target = targetPath(member.key, at: member.keyLocation, model: model) else { return nil }
        var propertyType = target.type
        var source = PayloadKeyPath(components: [], text: "")
        var isOptional = false
        var explicitRequired: SourceLocation?
        var defaultNode: SyntaxNode?
        var transformClass: SyntaxMember?
        var transformSelector: SyntaxMember?
        var userData: SyntaxMember?
        var reverseSelector: SyntaxMember?
        var objectMember: SyntaxMember?
        var clearContent: SyntaxMember?
        var insertAtBegin: SyntaxMember?
        var dateFormat: [String]?
        var valid = true

        switch member.value.kind {
        case .string(let path):
            guard let parsed = keyPath(path, at: member.value.location) else { return nil }
            source = parsed
        case .object(let options):
            for option in options {
                switch option.key {
                case "@keyPath":
                    guard let path = option.value.stringValue else {
                        diagnostics.append(
                            Diagnostic(
                                message: "\"@keyPath\" takes a string, not \(option.value.typeName)",
                                location: option.value.location))
                        valid = false
                        continue
                    }
                    if let parsed = keyPath(path, at: option.value.location) { source = parsed } else { valid = false }
                case "@optional":
                    guard let flag = boolean(option) else { valid = false; continue }
                    isOptional = flag
                    if !flag { explicitRequired = option.value.location }
                case "@defaultValue": defaultNode = option.value
                case "@transformClass": transformClass = option
                case "@transformSelector": transformSelector = option
                case "@transformUserData": userData = option
                case "@reverseTransformSelector": reverseSelector = option
                case "@object": objectMember = option
                case "@clearContent": clearContent = option
                case "@insertContentAtBegin": insertAtBegin = option
                case "@dateFormat":
                    guard let formats = dateFormats(option) else {
                        valid = false
                        continue
                    }
                    dateFormat = formats
                case "@type":
                    if model != nil {
                        diagnostics.append(
                            Diagnostic(
                                message:
                                    "\"@type\" is for contexts without \"@class\"; \"\(member.key)\" is declared as \(propertyType.map(String.init(describing:)) ?? "a property")",
                                location: option.keyLocation, help: "remove \"@type\": the model declares the type"))
                        valid = false
                        continue
                    }
                    if let type = typeReference(option.value) { propertyType = type } else { valid = false }
                default:
                    if option.key.hasPrefix("@") {
                        diagnostics.append(unknownKeyword(option, in: "an entry", allowed: Keywords.entry))
                    } else {
                        diagnostics.append(
                            Diagnostic(
                                message: "\"\(option.key)\" is not an option: a long-form entry holds only @ keywords",
                                location: option.keyLocation,
                                help:
                                    "to map properties of a nested object, put them under \"@object\": { \"@mappings\": { … } }"
                            ))
                    }
                    valid = false
                }
            }
        default:
            diagnostics.append(
                Diagnostic(
                    message:
                        "the entry \"\(member.key)\" maps from a source key path (a string) or options (an object), not \(member.value.typeName)",
                    location: member.value.location, help: "write \"\(member.key)\": \"source.key.path\""))
            return nil
        }

        var transformer: TransformerReference?
        switch (transformClass, transformSelector) {
        case (let classMember?, let selectorMember?):
            let className = nonEmptyString(classMember)
            let selector = nonEmptyString(selectorMember)
            if let className, let selector {
                transformer = TransformerReference(
                    className: className, selector: selector,
                    userData: userData?.value.jsonValue)
            } else {
                valid = false
            }
        case (let only?, nil), (nil, let only?):
            let missing = only.key == "@transformClass" ? "@transformSelector" : "@transformClass"
            diagnostics.append(
                Diagnostic(
                    message: "\"\(only.key)\" needs \"\(missing)\" beside it", location: only.keyLocation,
                    help: "a transformer is named by both its class and its selector"))
            valid = false
        case (nil, nil):
            if let userData {
                diagnostics.append(
                    Diagnostic(
                        message: "\"@transformUserData\" is handed to a transformer, but this entry names none",
                        location: userData.keyLocation, help: "add \"@transformClass\" and \"@transformSelector\""))
                valid = false
            }
        }

        var reverseTransformer: TransformerReference?
        if let reverseSelector {
            if let transformer {
                if let selector = nonEmptyString(reverseSelector) {
                    reverseTransformer = TransformerReference(
                        className: transformer.className, selector: selector, userData: transformer.userData)
                } else {
                    valid = false
                }
            } else if transformClass == nil && transformSelector == nil {
                diagnostics.append(
                    Diagnostic(
                        message: "\"@reverseTransformSelector\" undoes a transformer, but this entry names none",
                        location: reverseSelector.keyLocation,
                        help: "add \"@transformClass\" and \"@transformSelector\""))
                valid = false
            }
        }

        for flag in [clearContent, insertAtBegin].compactMap({ $0 }) {
            guard let value = boolean(flag) else { valid = false; continue }
            let clearsDictionary =
                if case .dictionary? = propertyType?.unwrapped { flag.key == "@clearContent" } else { false }
            if value, let type = propertyType, !type.isCollection, !clearsDictionary, type.unwrapped != .json {
                diagnostics.append(
                    Diagnostic(
                        message: "\"\(flag.key)\" applies to collections, but \"\(member.key)\" is \(type)",
                        location: flag.keyLocation))
                valid = false
            }
        }
        if dateFormat != nil, propertyType == nil {
            diagnostics.append(
                Diagnostic(
                    message: "\"@dateFormat\" needs a Date, but \"\(member.key)\" has no type",
                    location: member.keyLocation,
                    help: "add \"@type\": \"Date\" beside \"@dateFormat\""))
            valid = false
        }
        if let dateFormat, let type = propertyType, type.elementType != .date {
            diagnostics.append(
                Diagnostic(
                    message: "\"@dateFormat\" applies to dates, but \"\(member.key)\" is \(type)",
                    location: member.keyLocation,
                    help: "remove \"@dateFormat\" (\(dateFormat.joined(separator: ", "))), or map into a Date"))
            valid = false
        }

        var object: ObjectRule?
        if let objectMember {
            object = compileObject(objectMember, propertyType: propertyType, property: member.key)
            if object == nil { valid = false }
        }

        var defaultValue: Value?
        if let defaultNode {
            if let explicitRequired {
                diagnostics.append(
                    Diagnostic(
                        message: "\"@defaultValue\" makes an entry optional, but \"@optional\" is false",
                        location: explicitRequired, help: "remove \"@optional\": false"))
                valid = false
            }
            isOptional = true
            var failures: [ConversionFailure] = []
            let converted = converter.convert(
                defaultNode.jsonValue, to: propertyType ?? .json,
                dateFormat: dateFormat.flatMap(DateFormats.init), failures: &failures)
            if let failure = failures.first {
                let place = failure.relativePath.isEmpty ? "" : " (at \(failure.relativePath))"
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the default value of \"\(member.key)\" cannot become \(propertyType ?? .json)\(place): \(failure.message)",
                        location: defaultNode.location))
                valid = false
            } else {
                defaultValue = converted
            }
        }
        guard valid else { return nil }
        return Rule(
            target: target.path, source: source, isOptional: isOptional, defaultValue: defaultValue,
            defaultJSON: defaultNode?.jsonValue, transformer: transformer, transform: nil,
            reverseTransformer: reverseTransformer, reverseTransform: nil, object: object,
            clearContent: clearContent.flatMap { boolean($0) } ?? false,
            insertContentAtBegin: insertAtBegin.flatMap { boolean($0) } ?? false,
            type: propertyType, dateFormat: dateFormat, dateFormats: dateFormat.flatMap(DateFormats.init),
            provenance: provenance(member.keyLocation, member.value))
    }

    /// The formats `@dateFormat` names: a pattern or named format, or a non-empty array of them.
    mutating func dateFormats(_ option: SyntaxMember) -> [String]? {
        let nodes: [SyntaxNode]
        if case .array(let elements) = option.value.kind {
            nodes = elements
            guard !nodes.isEmpty else {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"@dateFormat\" takes a pattern, a named format or a list of them, not an empty array",
                        location: option.value.location, help: "for example [\"@iso8601\", \"yyyy-MM-dd\"]"))
                return nil
            }
        } else {
            nodes = [option.value]
        }
        var formats: [String] = []
        for node in nodes {
            guard let format = node.stringValue, !format.isEmpty else {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"@dateFormat\" takes a non-empty pattern string or a named format, not \(node.typeName)",
                        location: node.location,
                        help: "for example \"EEE MMM dd HH:mm:ss Z yyyy\" or \"@unixMilliseconds\""))
                return nil
            }
            if format.hasPrefix("@"), !DateFormats.names.contains(where: { $0.name == format }) {
                let names = DateFormats.names.map(\.name)
                diagnostics.append(
                    Diagnostic(
                        message: "\"\(format)\" is not a named date format",
                        location: node.location,
                        help: Suggestion.help(for: format, among: names)
                            ?? names.first(where: { $0.lowercased().hasPrefix(format.lowercased()) }).map {
                                "did you mean \"\($0)\"?"
                            } ?? "the named formats are \(names.joined(separator: ", "))"))
                return nil
            }
            formats.append(format)
        }
        return formats
    }
}
