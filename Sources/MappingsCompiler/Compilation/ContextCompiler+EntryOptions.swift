import MappingsJSON
import MappingsModel

/// Reading an entry's options (`"name": "user.name"` or `"name": { "@keyPath": …, … }`) into
/// `EntryOptions`, reporting each option that is wrong in the order they are written.
extension ContextCompiler {
    /// The options `member` writes; `nil` after reporting an entry that is neither a key path
    /// nor an object of options, or whose short-form key path does not parse.
    ///
    /// - Parameters:
    ///   - member: the entry.
    ///   - model: the model of the context, if it has one (then `@type` is not allowed).
    ///   - declaredType: the type of the target property, for messages.
    mutating func entryOptions(_ member: SyntaxMember, model: String?, declaredType: TypeReference?) -> EntryOptions? {
        var options = EntryOptions()
        switch member.value.kind {
        case .string(let path):
            guard let parsed = keyPath(path, at: member.value.location) else { return nil }
            options.source = parsed
        case .object(let written):
            for option in written {
                let valid = read(option, of: member, model: model, declaredType: declaredType, into: &options)
                options.isValid = options.isValid && valid
            }
        default:
            diagnostics.append(
                Diagnostic(
                    message:
                        "the entry \"\(member.key)\" maps from a source key path (a string) or options (an object), not \(member.value.typeName)",
                    location: member.value.location, help: "write \"\(member.key)\": \"source.key.path\""))
            return nil
        }
        return options
    }

    /// Reads one option of a long-form entry into `options`; `false` after reporting it.
    private mutating func read(
        _ option: SyntaxMember, of member: SyntaxMember, model: String?, declaredType: TypeReference?,
        into options: inout EntryOptions
    ) -> Bool {
        switch option.key {
        case "@keyPath":
            guard options.source.text.isEmpty, options.selection == nil else {
                diagnostics.append(
                    Diagnostic(
                        message: "\"@keyPath\" is written twice in this entry", location: option.keyLocation,
                        help: "keep one: key paths tried in order are an array, several values by key an object"))
                return false
            }
            if case .object(let members) = option.value.kind {
                guard let selection = keyedSelection(members, at: option.value.location) else { return false }
                options.selection = selection
                options.source = PayloadKeyPath(components: [], text: "@self")
                return true
            }
            guard let paths = sourceKeyPaths(option) else { return false }
            options.source = paths[0]
            options.fallbacks = Array(paths.dropFirst())
        case "@optional":
            guard let flag = boolean(option) else { return false }
            options.isOptional = flag
            if !flag { options.explicitRequired = option.value.location }
        case "@defaultValue": options.defaultValue = option.value
        case "@transformClass": options.transformClass = option
        case "@transformSelector": options.transformSelector = option
        case "@transformUserData": options.transformUserData = option
        case "@reverseTransformSelector": options.reverseTransformSelector = option
        case "@lua": options.lua = option
        case "@reverseLua": options.reverseLua = option
        case "@object": options.object = option
        case "@lookup": options.lookup = option
        case "@clearContent": options.clearContent = option
        case "@insertContentAtBegin": options.insertContentAtBegin = option
        case "@valueMap": options.valueMap = option
        case "@reverseValue": options.reverseValue = option
        case "@reverseFanOut": options.reverseFanOut = option
        case "@reverse":
            guard let flag = boolean(option) else { return false }
            options.reverse = option
            options.forwardOnly = !flag
        case "@identity", "@onElementError", "@onError", "@null": options.policies.append(option)
        case "@dateFormat":
            guard let formats = dateFormats(option) else { return false }
            options.dateFormat = formats
        case "@dateRange":
            guard let range = dateRange(option) else { return false }
            options.dateRange = range
        case "@type":
            guard let type = entryType(option, of: member, model: model, declaredType: declaredType) else {
                return false
            }
            options.type = type
        default:
            reportNonOption(option)
            return false
        }
        return true
    }

    /// A keyed selection: `{ "amount": "amount", "currency": ["currency", "default_currency"] }`,
    /// each key a non-empty name and each value what `@keyPath` takes; `nil` after reporting.
    private mutating func keyedSelection(_ members: [SyntaxMember], at location: SourceLocation) -> [SelectedKey]? {
        guard !members.isEmpty else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@keyPath\" selects values into an object by key, but this object names none",
                    location: location,
                    help: "write \"@keyPath\": { \"amount\": \"amount\", \"currency\": \"currency\" }"))
            return nil
        }
        var selection: [SelectedKey] = []
        var valid = true
        var seen: Set<String> = []
        for member in members {
            guard !member.key.isEmpty else {
                diagnostics.append(
                    Diagnostic(
                        message: "a key of a keyed selection is empty",
                        location: member.keyLocation,
                        help: member.value.stringValue.flatMap { $0.split(separator: ".").last.map(String.init) }.map {
                            "did you mean \"\($0)\"? each key names the member its value is under"
                        } ?? "each key names the member its value is under, such as \"amount\""))
                valid = false
                continue
            }
            guard seen.insert(member.key).inserted else {
                diagnostics.append(
                    Diagnostic(
                        message: "the keyed selection names \"\(member.key)\" twice", location: member.keyLocation,
                        help: "list fallbacks as an array under one key: \"\(member.key)\": [\"a\", \"b\"]"))
                valid = false
                continue
            }
            guard let paths = sourceKeyPaths(member) else {
                valid = false
                continue
            }
            selection.append(SelectedKey(key: member.key, paths: paths))
        }
        return valid ? selection : nil
    }

    /// The key paths `@keyPath` names: one string, or a non-empty array of them tried in order;
    /// `nil` after reporting another value or a path that does not parse.
    private mutating func sourceKeyPaths(_ option: SyntaxMember) -> [PayloadKeyPath]? {
        let nodes: [SyntaxNode]
        let isList = if case .array = option.value.kind { true } else { false }
        if case .array(let elements) = option.value.kind {
            guard !elements.isEmpty else {
                diagnostics.append(
                    Diagnostic(
                        message: "\"@keyPath\" takes a key path or a list of them, not an empty array",
                        location: option.value.location,
                        help: "list the key paths to try in order, such as [\"full_text\", \"text\"]"))
                return nil
            }
            nodes = elements
        } else {
            nodes = [option.value]
        }
        var paths: [PayloadKeyPath] = []
        // Every path of a list is checked: each mistake is reported in its place.
        var valid = true
        for node in nodes {
            guard let text = node.stringValue else {
                diagnostics.append(
                    Diagnostic(
                        message: isList
                            ? "\"@keyPath\" lists key paths (strings), not \(node.typeName)"
                            : "\"@keyPath\" takes a string or an array of strings, not \(node.typeName)",
                        location: node.location,
                        help: "write \"@keyPath\": \"user.name\" or \"@keyPath\": [\"full_text\", \"text\"]"))
                valid = false
                continue
            }
            guard let path = keyPath(text, at: node.location) else {
                valid = false
                continue
            }
            paths.append(path)
        }
        return valid ? paths : nil
    }

    /// The type `@type` names; `nil` after reporting it in a context with a model (whose
    /// property already has a type) or a type that does not parse.
    private mutating func entryType(
        _ option: SyntaxMember, of member: SyntaxMember, model: String?, declaredType: TypeReference?
    ) -> TypeReference? {
        guard model == nil else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"@type\" is for contexts without \"@class\"; \"\(member.key)\" is declared as \(declaredType.map(String.init(describing:)) ?? "a property")",
                    location: option.keyLocation, help: "remove \"@type\": the model declares the type"))
            return nil
        }
        return typeReference(option.value)
    }

    /// Reports a key of a long-form entry that is no entry option: an unknown `@` keyword,
    /// or a property name written where `@object` was meant.
    private mutating func reportNonOption(_ option: SyntaxMember) {
        if option.key == "@filter" {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"@filter\" keeps or drops a whole payload, so it stands at a context's top level, not in an entry",
                    location: option.keyLocation,
                    help: "move it beside \"@class\"; to compute this entry's value, did you mean \"@lua\"?"))
            return
        }
        if option.key.hasPrefix("@") {
            diagnostics.append(unknownKeyword(option, in: "an entry", allowed: Keywords.entry))
            return
        }
        diagnostics.append(
            Diagnostic(
                message: "\"\(option.key)\" is not an option: a long-form entry holds only @ keywords",
                location: option.keyLocation,
                help: "to map properties of a nested object, put them under \"@object\": { \"@mappings\": { … } }"))
    }

    /// The dates `@dateRange` allows: `["1990-01-01", "2100-01-01"]`, two ISO 8601 dates in order.
    mutating func dateRange(_ option: SyntaxMember) -> DateFormats.DateRange? {
        let example = "for example [\"1990-01-01\", \"2100-01-01\"]: the first and last dates a value may be"
        guard case .array(let elements) = option.value.kind, elements.count == 2,
            let lower = elements[0].stringValue, let upper = elements[1].stringValue
        else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@dateRange\" takes two ISO 8601 dates, not \(option.value.typeName)",
                    location: option.value.location, help: example))
            return nil
        }
        switch DateFormats.DateRange.reading(lower, upper) {
        case .success(let range):
            return range
        case .failure(let refusal):
            diagnostics.append(
                Diagnostic(message: "\"@dateRange\": \(refusal.reason)", location: option.value.location, help: example)
            )
            return nil
        }
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
