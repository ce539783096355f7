/// Compiles resolved context definitions into `CompiledContext`s, checking every entry
/// against the models: unknown keywords, classes, properties and contexts, and defaults
/// that cannot convert, each reported with a "did you mean" where one is close.
struct ContextCompiler {
    let models: [String: Model]
    let converter: Converter
    var inheritance: InheritanceResolver
    /// Index of each named context in `contexts`.
    let named: [String: Int]
    /// For each file path, the `@import` sites that loaded it, nearest first.
    let importChains: [String: [SourceLocation]]
    private(set) var contexts: [CompiledContext?]
    private(set) var diagnostics: [Diagnostic] = []
    /// Definitions compiled again for a model they do not name themselves, by name and model.
    private var retargeted: [String: Int] = [:]

    init(
        models: [String: Model], inheritance: InheritanceResolver, named: [String],
        importChains: [String: [SourceLocation]]
    ) {
        self.models = models
        self.converter = Converter(models: models)
        self.inheritance = inheritance
        self.named = Dictionary(named.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.importChains = importChains
        self.contexts = Array(repeating: nil, count: named.count)
    }

    /// Compiles the named context at `index`.
    mutating func compileNamed(_ name: String, index: Int) {
        guard let node = inheritance.definition(name) else { return }
        contexts[index] = compileBody(node, identifier: name, index: index, model: nil)
    }

    // MARK: Contexts

    private mutating func compileBody(
        _ node: SyntaxNode, identifier: String?, index: Int, model forcedModel: String?
    ) -> CompiledContext {
        let provenance = self.provenance(node.location, node)
        guard let members = node.members else {
            diagnostics.append(
                Diagnostic(
                    message: "a context is an object of entries, not \(node.typeName)", location: node.location,
                    help: "write { \"@class\": \"MyModel\", \"property\": \"source.key.path\" }"))
            return CompiledContext(
                identifier: identifier, index: index, model: forcedModel, rules: [], provenance: provenance)
        }
        if let object = members.first(where: { $0.key == "@object" }) {
            return compileObjectForm(
                object, members: members, identifier: identifier, index: index,
                forcedModel: forcedModel, provenance: provenance)
        }
        var model = forcedModel
        if let classMember = members.first(where: { $0.key == "@class" }) {
            if let declared = className(classMember.value), forcedModel == nil || declared == forcedModel {
                model = declared
            } else if let declared = classMember.value.stringValue, let forcedModel, declared != forcedModel {
                diagnostics.append(
                    Diagnostic(
                        message: "this context builds \"\(declared)\", but it is used to build \"\(forcedModel)\"",
                        location: classMember.value.location))
            }
        }
        var rules: [Rule] = []
        for member in members where member.key != "@class" {
            if member.key.hasPrefix("@") {
                diagnostics.append(unknownKeyword(member, in: "a context", allowed: Keywords.context))
                continue
            }
            if let rule = compileEntry(member, model: model) { rules.append(rule) }
        }
        return CompiledContext(identifier: identifier, index: index, model: model, rules: rules, provenance: provenance)
    }

    /// `{ "@object": { "@class": …, "@mappings": … } }` at the top of a context.
    private mutating func compileObjectForm(
        _ object: SyntaxMember, members: [SyntaxMember], identifier: String?, index: Int, forcedModel: String?,
        provenance: Provenance
    ) -> CompiledContext {
        for member in members where member.key != "@object" {
            diagnostics.append(
                Diagnostic(
                    message: "a context written with \"@object\" holds nothing else, but it also has \"\(member.key)\"",
                    location: member.keyLocation, help: "move the entries into \"@object\": { \"@mappings\": { … } }"))
        }
        guard let options = object.value.members else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"@object\" takes an object with \"@class\" and \"@mappings\", not \(object.value.typeName)",
                    location: object.value.location))
            return CompiledContext(
                identifier: identifier, index: index, model: forcedModel, rules: [], provenance: provenance)
        }
        var model = forcedModel
        var body: SyntaxNode?
        for member in options {
            switch member.key {
            case "@class": model = className(member.value) ?? model
            case "@mappings":
                if let reference = member.value.stringValue {
                    body = inheritance.lookup(reference, at: member.value.location, purpose: "\"@mappings\"")
                } else if case .object = member.value.kind {
                    body = member.value
                } else {
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "\"@mappings\" takes a context identifier or an inline context, not \(member.value.typeName)",
                            location: member.value.location))
                }
            default:
                diagnostics.append(unknownKeyword(member, in: "\"@object\"", allowed: Keywords.object))
            }
        }
        guard let body else {
            return CompiledContext(
                identifier: identifier, index: index, model: model, rules: [], provenance: provenance)
        }
        let compiled = compileBody(body, identifier: identifier, index: index, model: model ?? declaredClass(body))
        return CompiledContext(
            identifier: identifier, index: index, model: compiled.model, rules: compiled.rules,
            provenance: provenance)
    }

    // MARK: Entries

    private mutating func compileEntry(_ member: SyntaxMember, model: String?) -> Rule? {
        guard let target = targetPath(member.key, at: member.keyLocation, model: model) else { return nil }
        var propertyType = target.type
        var source = KeyPath(components: [], text: "")
        var isOptional = false
        var explicitRequired: SourceLocation?
        var defaultNode: SyntaxNode?
        var transformClass: SyntaxMember?
        var transformSelector: SyntaxMember?
        var userData: SyntaxMember?
        var objectMember: SyntaxMember?
        var clearContent: SyntaxMember?
        var insertAtBegin: SyntaxMember?
        var dateFormat: String?
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
                case "@object": objectMember = option
                case "@clearContent": clearContent = option
                case "@insertContentAtBegin": insertAtBegin = option
                case "@dateFormat":
                    guard let format = option.value.stringValue, !format.isEmpty else {
                        diagnostics.append(
                            Diagnostic(
                                message:
                                    "\"@dateFormat\" takes a non-empty pattern string, not \(option.value.typeName)",
                                location: option.value.location, help: "for example \"EEE MMM dd HH:mm:ss Z yyyy\""))
                        valid = false
                        continue
                    }
                    dateFormat = format
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

        for flag in [clearContent, insertAtBegin].compactMap({ $0 }) {
            guard let value = boolean(flag) else { valid = false; continue }
            if value, let type = propertyType, !type.isCollection, type.unwrapped != .json {
                diagnostics.append(
                    Diagnostic(
                        message: "\"\(flag.key)\" applies to collections, but \"\(member.key)\" is \(type)",
                        location: flag.keyLocation))
                valid = false
            }
        }
        if let dateFormat, let type = propertyType, type.elementType != .date {
            diagnostics.append(
                Diagnostic(
                    message: "\"@dateFormat\" applies to dates, but \"\(member.key)\" is \(type)",
                    location: member.keyLocation, help: "remove \"@dateFormat\" (\(dateFormat)), or map into a Date"))
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
            if case .null = defaultNode.kind {
                defaultValue = .null
            } else {
                var failures: [ConversionFailure] = []
                let converted = converter.convert(
                    defaultNode.jsonValue, to: propertyType ?? .json,
                    dateFormat: dateFormat, failures: &failures)
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
        }
        guard valid else { return nil }
        return Rule(
            target: target.path, source: source, isOptional: isOptional, defaultValue: defaultValue,
            defaultJSON: defaultNode?.jsonValue, transformer: transformer, object: object,
            clearContent: clearContent.flatMap { boolean($0) } ?? false,
            insertContentAtBegin: insertAtBegin.flatMap { boolean($0) } ?? false,
            type: propertyType, dateFormat: dateFormat,
            provenance: provenance(member.keyLocation, member.value))
    }

    /// Compiles an entry's `@object`; `nil` (reported) when it is wrong.
    private mutating func compileObject(_ member: SyntaxMember, propertyType: TypeReference?, property: String)
        -> ObjectRule?
    {
        guard let options = member.value.members else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"@object\" takes an object with \"@class\" and \"@mappings\", not \(member.value.typeName)",
                    location: member.value.location))
            return nil
        }
        var expected: String?
        if let propertyType {
            switch propertyType.elementType {
            case .model(let name): expected = name
            case .json: expected = nil
            default:
                diagnostics.append(
                    Diagnostic(
                        message: "\"@object\" builds objects, but \"\(property)\" is \(propertyType)",
                        location: member.keyLocation,
                        help: "declare \"\(property)\" with a model type, or remove \"@object\""))
                return nil
            }
        }
        var explicitClass: (name: String, location: SourceLocation)?
        var mappings: SyntaxMember?
        var valid = true
        for option in options {
            switch option.key {
            case "@class":
                if let name = className(option.value) {
                    explicitClass = (name, option.value.location)
                } else {
                    valid = false
                }
            case "@mappings": mappings = option
            default:
                diagnostics.append(unknownKeyword(option, in: "\"@object\"", allowed: Keywords.object))
                valid = false
            }
        }
        guard valid else { return nil }
        if let explicitClass, let expected, explicitClass.name != expected {
            diagnostics.append(
                Diagnostic(
                    message: "\"\(property)\" holds \(expected), but \"@object\" builds \(explicitClass.name)",
                    location: explicitClass.location))
            return nil
        }
        guard let mappings else {
            return ObjectRule(model: explicitClass?.name ?? expected, context: nil)
        }
        switch mappings.value.kind {
        case .string(let reference):
            if let index = named[reference] {
                let declared = inheritance.definition(reference).flatMap(declaredClass)
                let model = explicitClass?.name ?? declared ?? expected
                if let declared, let required = explicitClass?.name ?? expected, declared != required {
                    diagnostics.append(
                        Diagnostic(
                            message: "\"\(reference)\" builds \(declared), but \"\(property)\" needs \(required)",
                            location: mappings.value.location))
                    return nil
                }
                if declared == model { return ObjectRule(model: model, context: index) }
                return ObjectRule(model: model, context: retarget(reference, model: model))
            }
            guard let node = inheritance.lookup(reference, at: mappings.value.location, purpose: "\"@mappings\"") else {
                return nil
            }
            return inline(
                node, explicitClass: explicitClass?.name, expected: expected, property: property,
                at: mappings.value.location)
        case .object:
            return inline(
                mappings.value, explicitClass: explicitClass?.name, expected: expected, property: property,
                at: mappings.value.location)
        default:
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"@mappings\" takes a context identifier or an inline context, not \(mappings.value.typeName)",
                    location: mappings.value.location))
            return nil
        }
    }

    /// Compiles an inline (or dotted-path) context for an `@object`.
    private mutating func inline(
        _ node: SyntaxNode, explicitClass: String?, expected: String?, property: String, at location: SourceLocation
    ) -> ObjectRule? {
        let declared = declaredClass(node)
        let model = explicitClass ?? declared ?? expected
        if let declared, let required = explicitClass ?? expected, declared != required {
            diagnostics.append(
                Diagnostic(
                    message: "these mappings build \(declared), but \"\(property)\" needs \(required)",
                    location: location))
            return nil
        }
        let index = contexts.count
        contexts.append(nil)
        contexts[index] = compileBody(node, identifier: nil, index: index, model: model)
        return ObjectRule(model: model, context: index)
    }

    /// The named context compiled again for `model` (it names no `@class` of its own).
    private mutating func retarget(_ name: String, model: String?) -> Int? {
        let key = name + "\u{0}" + (model ?? "")
        if let done = retargeted[key] { return done }
        guard let node = inheritance.definition(name) else { return nil }
        let index = contexts.count
        contexts.append(nil)
        retargeted[key] = index
        contexts[index] = compileBody(node, identifier: nil, index: index, model: model)
        return index
    }

    // MARK: Pieces

    private struct ResolvedTarget {
        var path: TargetPath
        var type: TypeReference?
    }

    private mutating func targetPath(_ text: String, at location: SourceLocation, model: String?) -> ResolvedTarget? {
        let names = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !names.contains(where: \.isEmpty) else {
            diagnostics.append(
                Diagnostic(
                    message: "the target \"\(text)\" has an empty component", location: location,
                    help: "remove the extra '.'"))
            return nil
        }
        guard let modelName = model, var current = models[modelName] else {
            return ResolvedTarget(
                path: TargetPath(steps: names.map { TargetPath.Step(name: $0, slot: nil) }), type: nil)
        }
        var steps: [TargetPath.Step] = []
        var type: TypeReference?
        for (offset, name) in names.enumerated() {
            guard let slot = current.slot(of: name) else {
                diagnostics.append(
                    Diagnostic(
                        message: "\(current.name) has no property \"\(name)\"", location: location,
                        notes: current.location.map {
                            [Diagnostic.Note(message: "\(current.name) is declared here", location: $0)]
                        } ?? [],
                        help: Suggestion.help(for: name, among: current.properties.map(\.name))))
                return nil
            }
            let property = current.properties[slot]
            steps.append(TargetPath.Step(name: name, slot: slot))
            type = property.type
            if offset < names.count - 1 {
                guard case .model(let next) = property.type.unwrapped, let nextModel = models[next] else {
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "\"\(name)\" of \(current.name) is \(property.type), which has no property \"\(names[offset + 1])\"",
                            location: location))
                    return nil
                }
                current = nextModel
            }
        }
        return ResolvedTarget(path: TargetPath(steps: steps), type: type)
    }

    private mutating func keyPath(_ text: String, at location: SourceLocation) -> KeyPath? {
        do {
            return try KeyPath.parse(text)
        } catch {
            diagnostics.append(Diagnostic(message: error.message, location: location, help: error.help))
            return nil
        }
    }

    private mutating func typeReference(_ node: SyntaxNode) -> TypeReference? {
        guard let text = node.stringValue else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@type\" takes a type name, not \(node.typeName)", location: node.location,
                    help: "write \"@type\": \"Date\""))
            return nil
        }
        do {
            let type = try TypeParser.parse(text)
            for name in type.modelNames where models[name] == nil {
                diagnostics.append(
                    Diagnostic(
                        message: "unknown type \"\(name)\"", location: node.location,
                        help: Suggestion.help(for: name, among: Array(TypeReference.scalars.keys) + Array(models.keys)))
                )
                return nil
            }
            return type
        } catch {
            var at = node.location
            at.column += 1 + error.offset
            at.length = error.length
            diagnostics.append(Diagnostic(message: "in \"@type\": \(error.message)", location: at, help: error.help))
            return nil
        }
    }

    /// The model a `@class` value names; reports and returns `nil` when it names none.
    private mutating func className(_ node: SyntaxNode) -> String? {
        guard let name = node.stringValue else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@class\" takes a model name, not \(node.typeName)", location: node.location))
            return nil
        }
        guard models[name] != nil else {
            diagnostics.append(
                Diagnostic(
                    message: "unknown class \"\(name)\"", location: node.location,
                    help: Suggestion.help(for: name, among: models.keys)
                        ?? "declare it under \"@models\", such as \"\(name)\": { \"name\": \"String\" }"))
            return nil
        }
        return name
    }

    /// The `@class` a context body declares itself (directly or through its `@object`), if any.
    private func declaredClass(_ node: SyntaxNode) -> String? {
        if let name = node.member("@class")?.value.stringValue, models[name] != nil { return name }
        if let name = node.member("@object")?.value.member("@class")?.value.stringValue, models[name] != nil {
            return name
        }
        return nil
    }

    private mutating func boolean(_ member: SyntaxMember) -> Bool? {
        switch member.value.kind {
        case .bool(let value): return value
        case .number("0"): return false
        case .number("1"): return true
        default:
            diagnostics.append(
                Diagnostic(
                    message: "\"\(member.key)\" takes true or false, not \(member.value.typeName)",
                    location: member.value.location))
            return nil
        }
    }

    private mutating func nonEmptyString(_ member: SyntaxMember) -> String? {
        guard let value = member.value.stringValue, !value.isEmpty else {
            diagnostics.append(
                Diagnostic(
                    message: "\"\(member.key)\" takes a non-empty string, not \(member.value.typeName)",
                    location: member.value.location))
            return nil
        }
        return value
    }

    private func unknownKeyword(_ member: SyntaxMember, in place: String, allowed: [String]) -> Diagnostic {
        if let help = Suggestion.help(for: member.key, among: allowed) {
            return Diagnostic(
                message: "unknown keyword \"\(member.key)\" in \(place)", location: member.keyLocation, help: help)
        }
        if Keywords.all.contains(member.key) {
            return Diagnostic(
                message: "\"\(member.key)\" has no meaning in \(place)", location: member.keyLocation,
                help: "here the keywords are " + allowed.map { "\"\($0)\"" }.joined(separator: ", "))
        }
        return Diagnostic(
            message: "unknown keyword \"\(member.key)\" in \(place)", location: member.keyLocation,
            help: Suggestion.help(for: member.key, among: Keywords.all)
                ?? "here the keywords are " + allowed.map { "\"\($0)\"" }.joined(separator: ", "))
    }

    private func provenance(_ location: SourceLocation, _ node: SyntaxNode) -> Provenance {
        Provenance(location: location, inheritedVia: node.inheritedVia, importedVia: importChains[location.file] ?? [])
    }
}
