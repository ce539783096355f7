import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// The stored properties of a `@MappedModel` type, as its declaration spells them: those the
/// model binds, in declaration order, and those `init()` must give a value to.
struct StoredProperties {
    /// A property of the model: its model name (and as a Swift literal: `@MappedProperty`'s as
    /// written), the key path's component and where it is.
    struct Bound {
        var name: String
        var literal: String
        var keyPath: String
        var node: Syntax
    }

    /// A stored property without an initial value, which an implicit `init()` could not set.
    struct Unset {
        var name: String
        var binding: PatternBindingSyntax
        var type: TypeSyntax?
    }

    private(set) var bound: [Bound] = []
    private var unset: [Unset] = []
    private let typeName: String
    private let kind: TypeKind

    init(of declaration: some DeclGroupSyntax, typeName: String, kind: TypeKind, _ report: inout Report) {
        self.typeName = typeName
        self.kind = kind
        var names: [String: Syntax] = [:]
        for member in declaration.memberBlock.members {
            if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
                Self.refuseConditional(conditional, &report)
                continue
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.isStatic {
                if variable.bindings.contains(where: { $0.name == "mapping" }) {
                    report.error(
                        variable, "mapped-model-mapping",
                        "\(typeName) declares its own `mapping`, which @MappedModel writes: remove one of them")
                }
                continue
            }
            for property in add(variable, &report) {
                if let earlier = names[property.name] {
                    report.error(
                        property.node, "mapped-model-duplicate",
                        "two properties of \(typeName) are the model property \"\(property.name)\"; rename one "
                            + "with @MappedProperty(\"…\")",
                        notes: [Note(earlier, "the first one")])
                } else {
                    names[property.name] = property.node
                    bound.append(property)
                }
            }
        }
    }

    /// The model properties `variable` declares, after saying what it cannot bind.
    private mutating func add(_ variable: VariableDeclSyntax, _ report: inout Report) -> [Bound] {
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        let ignored = variable.attribute(named: "MappedIgnored") != nil
        let renamedExpression = variable.attribute(named: "MappedProperty")?.arguments?.as(LabeledExprListSyntax.self)?
            .first?.expression
        let renamed = renamedExpression.flatMap(plainString)
        let bindings = Array(variable.bindings)
        var result: [Bound] = []
        for (index, binding) in bindings.enumerated() where binding.isStored {
            // `var a, b: Int`: a binding without a type takes the next one's.
            let type = binding.typeAnnotation?.type ?? bindings[index...].lazy.compactMap(\.typeAnnotation).first?.type
            let name = binding.name
            let hasValue = binding.initializer != nil
            if !hasValue && !(Self.isOptional(type) && !isLet) && !(isLet && !ignored) {
                unset.append(Unset(name: name ?? binding.pattern.trimmedDescription, binding: binding, type: type))
            }
            if ignored || (isLet && hasValue) { continue }
            guard let name, let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
                report.error(
                    binding.pattern, "mapped-model-pattern",
                    "@MappedModel binds properties one name at a time: declare each of "
                        + "`\(binding.pattern.trimmedDescription)` with a `var` of its own")
                continue
            }
            if Self.refuses(variable, name: name, type: type, isLet: isLet, &report) { continue }
            if renamed != nil && bindings.count > 1 {
                // The compiler refuses the attribute on `var a, b`; binding both under one name
                // would only add a duplicate to its error.
                continue
            }
            // A Swift identifier holds no quote or backslash: quoted as it is.
            let literal = renamed == nil ? "\"\(name)\"" : renamedExpression?.trimmedDescription ?? "\"\(name)\""
            result.append(
                Bound(
                    name: renamed ?? name, literal: literal, keyPath: identifier.identifier.text, node: Syntax(binding))
            )
        }
        return result
    }

    /// Says why `name`, declared by `variable`, cannot be bound, when it cannot: a `let`, a
    /// `lazy`, `weak` or `unowned` property, or a type that is not a mappable value.
    private static func refuses(
        _ variable: VariableDeclSyntax, name: String, type: TypeSyntax?, isLet: Bool, _ report: inout Report
    ) -> Bool {
        if isLet {
            report.error(
                variable.bindingSpecifier, "mapped-model-let",
                "@MappedModel cannot bind `let \(name)`: mapping sets a model property after `init()`; "
                    + "make it a `var`, or leave it out with @MappedIgnored",
                fixIt: FixIt(
                    message: Fix("make it a `var`"),
                    changes: [
                        .replace(
                            oldNode: Syntax(variable.bindingSpecifier),
                            newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var))))
                    ]))
            return true
        }
        if let modifier = variable.modifiers.first(where: {
            [.keyword(.lazy), .keyword(.weak), .keyword(.unowned)].contains($0.name.tokenKind)
        }) {
            report.error(
                modifier, "mapped-model-modifier",
                "@MappedModel cannot bind a `\(modifier.name.text)` property (`\(name)`): "
                    + "leave it out with @MappedIgnored",
                fixIt: Self.ignoreFix(variable))
            return true
        }
        if let type, let problem = TypeCheck.problem(of: type) {
            report.error(
                problem.node, "mapped-model-type",
                "@MappedModel cannot bind `\(name)`: \(problem.reason)",
                fixIt: problem.replacement.map { replacement in
                    FixIt(
                        message: Fix("use `\(replacement)`"),
                        changes: [
                            .replace(
                                oldNode: problem.node,
                                newNode: Syntax(
                                    IdentifierTypeSyntax(
                                        leadingTrivia: problem.node.leadingTrivia,
                                        name: .identifier(replacement),
                                        trailingTrivia: problem.node.trailingTrivia)))
                        ])
                } ?? Self.ignoreFix(variable))
            return true
        }
        return false
    }

    /// Says that the type cannot be made with `init()`, when it cannot: declared initializers
    /// that all take arguments, or none and a stored property without an initial value.
    func checkMakeable(_ declaration: some DeclGroupSyntax, _ node: AttributeSyntax, _ report: inout Report) {
        let initializers = declaration.memberBlock.members.compactMap { $0.decl.as(InitializerDeclSyntax.self) }
        if !initializers.isEmpty {
            let nullary = initializers.contains { initializer in
                initializer.optionalMark == nil && initializer.signature.effectSpecifiers == nil
                    && initializer.signature.parameterClause.parameters.allSatisfy { $0.defaultValue != nil }
            }
            if !nullary {
                report.error(
                    node, "mapped-model-init",
                    "@MappedModel makes each \(typeName) with `init()`, and every initializer of the \(kind.word) "
                        + "takes arguments: declare `init()` (giving each property a value)")
            }
            return
        }
        for property in unset {
            let value = property.type.flatMap(TypeCheck.emptyValue(of:))
            report.error(
                property.binding.pattern, "mapped-model-init",
                "@MappedModel makes each \(typeName) with `init()`, which needs an initial value for "
                    + "`\(property.name)`: give it one, or declare `init()`",
                fixIt: value.map { value in
                    var annotation = property.binding.typeAnnotation
                    annotation?.trailingTrivia = []
                    let fixed = property.binding
                        .with(\.typeAnnotation, annotation)
                        .with(
                            \.initializer,
                            InitializerClauseSyntax(
                                equal: .equalToken(leadingTrivia: .space, trailingTrivia: .space),
                                value: ExprSyntax(stringLiteral: value),
                                trailingTrivia: property.binding.typeAnnotation?.trailingTrivia ?? []))
                    return FixIt(
                        message: Fix("give `\(property.name)` the initial value `\(value)`"),
                        changes: [.replace(oldNode: Syntax(property.binding), newNode: Syntax(fixed))])
                })
        }
    }

    /// A member under `#if`: the macro cannot tell which branch builds, so a stored property
    /// there is refused rather than bound or left out by a guess.
    private static func refuseConditional(_ conditional: IfConfigDeclSyntax, _ report: inout Report) {
        for clause in conditional.clauses {
            guard case .decls(let members) = clause.elements else { continue }
            for member in members {
                guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isStatic,
                    variable.bindings.contains(where: \.isStored)
                else { continue }
                report.error(
                    variable, "mapped-model-conditional",
                    "@MappedModel cannot tell which branch of `#if` builds: declare stored properties outside it, "
                        + "or bind the type by hand with TypedModel")
            }
        }
    }

    private static func ignoreFix(_ variable: VariableDeclSyntax) -> FixIt {
        var attribute = AttributeSyntax(attributeName: IdentifierTypeSyntax(name: .identifier("MappedIgnored")))
        attribute.leadingTrivia = variable.leadingTrivia
        attribute.trailingTrivia = .space
        var fixed = variable
        fixed.leadingTrivia = []
        fixed.attributes = [.attribute(attribute)] + fixed.attributes
        return FixIt(
            message: Fix("leave it out of the model with @MappedIgnored"),
            changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(fixed))])
    }

    /// `T?`, `T!` or `Optional<T>`: a `var` of such a type starts as `nil`.
    private static func isOptional(_ type: TypeSyntax?) -> Bool {
        guard let type else { return false }
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == "Optional" && identifier.genericArgumentClause != nil
        }
        return false
    }
}

extension VariableDeclSyntax {
    var isStatic: Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    func attribute(named name: String) -> AttributeSyntax? {
        for element in attributes {
            if case .attribute(let attribute) = element, attribute.attributeName.trimmedDescription == name {
                return attribute
            }
        }
        return nil
    }
}

extension PatternBindingSyntax {
    /// The property's name without backticks, or `nil` for a tuple pattern.
    var name: String? {
        guard let identifier = pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return nil }
        if identifier.hasPrefix("`") && identifier.hasSuffix("`") && identifier.count > 1 {
            return String(identifier.dropFirst().dropLast())
        }
        return identifier
    }

    /// Whether the binding stores a value: no accessors, or only observers (`willSet`, `didSet`).
    var isStored: Bool {
        switch accessorBlock?.accessors {
        case nil: return true
        case .getter: return false
        case .accessors(let accessors):
            return accessors.allSatisfy {
                $0.accessorSpecifier.tokenKind == .keyword(.willSet)
                    || $0.accessorSpecifier.tokenKind == .keyword(.didSet)
            }
        }
    }
}
