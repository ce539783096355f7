package import MappingsCompiler
package import MappingsModel

/// What the JSON output of a context looks like, read off its compiled rules and the writer's
/// output rules: the one description both schema writers render.
///
/// A model object is written with every declared property, in declaration order, `null` where
/// nothing set it; a context without a model writes only the keys its entries set. A property
/// is certain to hold a value when a required entry, or one with a default, sets it: a record
/// whose required value is missing is rejected, so it never reaches the output.
package indirect enum OutputShape {
    /// A value converted to a declared type: scalars, enums, arrays, dictionaries, and models
    /// converted by name (whose non-optional properties are then required).
    case converted(TypeReference)
    /// Any JSON value: an entry without a type, a nested object copied as it is.
    case json
    /// The object a context builds (by its index in the catalog), once or per element.
    case built(context: Int, Collection)
    /// The object one of several contexts builds, once or per element: a union's cases
    /// (`@cases` and `@otherwise`), each context once, in the order written. Each object
    /// carries the discriminator the payload had, first (`Tag.field(for:catalog:)`).
    case alternatives(contexts: [Int], tag: Tag, Collection)
    /// A union member's discriminator value, as the payload had it: one of `values` (each as
    /// text, or the number or boolean it reads as), or any scalar when `open` (`@otherwise`).
    case discriminator(values: [String], open: Bool)
    /// An object made of fields in place: the intermediate objects of dotted target paths.
    case object(name: String?, fields: [Field])

    /// How many objects a `built` value holds: one, or collections of them to any depth
    /// (`[[Tweet]]` is an array of arrays of single objects).
    package indirect enum Collection: Equatable {
        case single
        case array(Collection)
        case dictionary(Collection)
        /// One object or an array of them, as the payload has it (an entry without a type).
        case either
    }

    /// Where a union's objects carry their discriminator, and the values each context's carry.
    package struct Tag: Equatable {
        /// The discriminator's key path, as object keys.
        let keys: [String]
        /// The case values that choose each context.
        let values: [Int: [String]]
        /// The context `@otherwise` maps with.
        let otherwise: Int?

        /// The field the objects `context` builds carry first; `nil` when its model has a
        /// property of the discriminator's first key, which then writes that key itself.
        package func field(for context: Int, catalog: Catalog) -> Field? {
            guard let first = keys.first else { return nil }
            if let model = catalog.contexts[context].modelDefinition, model.slot(of: first) != nil { return nil }
            let open = otherwise == context
            var shape = OutputShape.discriminator(values: values[context] ?? [], open: open)
            for key in keys.dropFirst().reversed() {
                shape = .object(name: nil, fields: [Field(name: key, shape: shape, nullable: false, required: !open)])
            }
            // Present whenever a case chose the object; `@otherwise` also takes a missing one.
            return Field(name: first, shape: shape, nullable: false, required: !open)
        }
    }

    /// One key of an output object.
    package struct Field {
        package let name: String
        package let shape: OutputShape
        /// Whether the value may be `null`.
        package let nullable: Bool
        /// Whether the key is always written.
        package let required: Bool

        package init(name: String, shape: OutputShape, nullable: Bool, required: Bool) {
            self.name = name
            self.shape = shape
            self.nullable = nullable
            self.required = required
        }
    }
}

extension OutputShape {
    /// The fields a context writes.
    package static func fields(of context: CompiledContext, catalog: Catalog) -> [Field] {
        let rules = context.rules.map { (steps: $0.target.steps.map(\.name)[...], rule: $0) }
        if let model = context.modelDefinition {
            return fields(of: model, rules: rules, catalog: catalog)
        }
        return fields(rules: rules, catalog: catalog)
    }

    /// The fields of a model's object as a model converted by name writes it: every property,
    /// non-optional ones never `null`.
    package static func fields(convertedFrom model: Model) -> [Field] {
        model.properties.map {
            Field(
                name: $0.name, shape: .converted($0.type.unwrapped), nullable: $0.type.unwrapped != $0.type,
                required: true)
        }
    }

    private typealias Targeted = (steps: ArraySlice<String>, rule: Rule)

    /// A model object: every property, `null` unless an entry is certain to set it.
    private static func fields(of model: Model, rules: [Targeted], catalog: Catalog) -> [Field] {
        model.properties.map { property in
            let mine = rules.filter { $0.steps.first == property.name }
            let direct = mine.filter { $0.steps.count == 1 }.map(\.rule)
            let nested = mine.filter { $0.steps.count > 1 }.map { (steps: $0.steps.dropFirst(), rule: $0.rule) }
            let shape: OutputShape
            if !direct.isEmpty {
                shape = Self.shape(of: direct, type: property.type)
            } else if !nested.isEmpty, case .model(let name) = property.type.unwrapped, let inner = catalog.models[name]
            {
                shape = .object(name: name, fields: fields(of: inner, rules: nested, catalog: catalog))
            } else {
                shape = .converted(property.type.unwrapped)
            }
            return Field(
                name: property.name, shape: shape, nullable: !mine.contains { isCertain($0.rule) }, required: true)
        }
    }

    /// A plain JSON object: the keys its entries set, in the order they first appear.
    private static func fields(rules: [Targeted], catalog: Catalog) -> [Field] {
        var names: [String] = []
        for (steps, _) in rules where !names.contains(steps[steps.startIndex]) { names.append(steps[steps.startIndex]) }
        return names.map { name in
            let mine = rules.filter { $0.steps.first == name }
            let direct = mine.filter { $0.steps.count == 1 }.map(\.rule)
            let nested = mine.filter { $0.steps.count > 1 }.map { (steps: $0.steps.dropFirst(), rule: $0.rule) }
            let shape: OutputShape
            switch (direct.isEmpty, nested.isEmpty) {
            case (false, true): shape = Self.shape(of: direct, type: direct[0].type)
            case (true, false): shape = .object(name: nil, fields: fields(rules: nested, catalog: catalog))
            default: shape = .json
            }
            return Field(name: name, shape: shape, nullable: false, required: mine.contains { isCertain($0.rule) })
        }
    }

    /// The value the entries targeting one property write (`null` aside: the field says whether
    /// it may be); entries that disagree make it any JSON.
    private static func shape(of rules: [Rule], type: TypeReference?) -> OutputShape {
        let shapes = rules.map { rule -> OutputShape in
            guard let object = rule.object else { return rule.type.map { .converted($0.unwrapped) } ?? .json }
            if let union = object.union {
                var contexts: [Int] = []
                var values: [Int: [String]] = [:]
                for choice in union.cases + [union.otherwise].compactMap(\.self) {
                    if !contexts.contains(choice.context) { contexts.append(choice.context) }
                    if !choice.value.isEmpty { values[choice.context, default: []].append(choice.value) }
                }
                let tag = Tag(keys: union.discriminator.keys, values: values, otherwise: union.otherwise?.context)
                return .alternatives(contexts: contexts, tag: tag, collection(of: rule.type))
            }
            guard let context = object.context else {
                guard let model = object.model else { return .json }
                let element = TypeReference.model(model)
                switch rule.type?.unwrapped {
                case .array?: return .converted(.array(element))
                case .dictionary?: return .converted(.dictionary(element))
                case nil: return .json
                default: return .converted(element)
                }
            }
            return .built(context: context, collection(of: rule.type))
        }
        return shapes.dropFirst().allSatisfy { $0.sameKind(as: shapes[0]) } ? shapes[0] : .json
    }

    /// How many objects an `@object` entry of `type` writes.
    private static func collection(of type: TypeReference?) -> Collection {
        switch type?.unwrapped {
        case .array(let element)?, .set(let element)?: .array(collection(of: element))
        case .dictionary(let element)?: .dictionary(collection(of: element))
        case nil: .either
        default: .single
        }
    }

    /// Whether a record that maps without an error always has a value from `rule`.
    private static func isCertain(_ rule: Rule) -> Bool {
        if !rule.isOptional { return true }
        guard let value = rule.defaultValue else { return false }
        if case .null = value { return false }
        return true
    }

    private func sameKind(as other: OutputShape) -> Bool {
        switch (self, other) {
        case (.converted(let a), .converted(let b)): a == b
        case (.json, .json): true
        case (.built(let a, let ac), .built(let b, let bc)): a == b && ac == bc
        case (.alternatives(let a, let at, let ac), .alternatives(let b, let bt, let bc)):
            a == b && at == bt && ac == bc
        default: false
        }
    }
}
