import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@MappedModel("Name")`: the `MappedModel` conformance of a struct or a final class, read off
/// its stored properties — the binding a host would otherwise write by hand:
///
/// ```swift
/// extension Tweet: MappedModel {
///     static let mapping = TypedModel<Tweet>("TweetModel", make: { Tweet() }, …) { bindings in
///         bindings.bind("identifier", \Tweet.identifier, line: 3) {
///             TypedModel<Tweet>.Bindings.set(&$0.identifier, from: $1, failures: &$2)
///         }
///         …
///     }
/// }
/// ```
///
/// The closure after each key path sets the property compiled in the host, for its own types
/// (no key path projected per record); the key path names the property for reverse mapping.
/// Everything it refuses is refused here, before the compiler type-checks the expansion, so that
/// the error names the property and the macro rather than a call the host never wrote.
enum MappedModelMacro: ExtensionMacro {
    static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        var report = Report(context: context)
        let modelName = Self.modelName(of: node, &report)
        guard let kind = Self.kind(of: declaration, node, &report) else { return [] }
        let typeName = type.trimmedDescription
        let properties = StoredProperties(of: declaration, typeName: typeName, kind: kind, &report)
        properties.checkMakeable(declaration, node, &report)
        guard let modelName, !report.failed else { return [] }

        let access = Self.accessLevel(of: declaration, in: context)
        let file = context.location(of: node, at: .afterLeadingTrivia, filePathMode: .fileID)
        let path = context.location(of: node, at: .afterLeadingTrivia, filePathMode: .filePath)
        var place = ""
        if let file, let path {
            place = ", fileID: \(file.file), filePath: \(path.file), line: \(file.line)"
        }
        var lines: [String] = []
        for property in properties.bound {
            let line = context.location(of: property.node).map { ", line: \($0.line)" } ?? ""
            lines.append(
                "        bindings.bind(\(property.literal), \\\(typeName).\(property.keyPath)\(line)) {\n"
                    + "            TypedModel<\(typeName)>.Bindings.set(&$0.\(property.keyPath), from: $1, failures: &$2)\n"
                    + "        }")
        }
        let conformance = protocols.isEmpty ? "" : ": " + protocols.map(\.trimmedDescription).joined(separator: ", ")
        let body = lines.isEmpty ? " _ in\n" : " bindings in\n" + lines.joined(separator: "\n") + "\n"
        let source: DeclSyntax = """
            extension \(raw: typeName)\(raw: conformance) {
                \(raw: access)static let mapping = TypedModel<\(raw: typeName)>(
                    \(raw: modelName.literal), make: { \(raw: typeName)() }\(raw: place)
                ) {\(raw: body)    }
            }
            """
        guard let extensionDecl = source.as(ExtensionDeclSyntax.self) else { return [] }
        return [extensionDecl]
    }

    /// The model name: the attribute's one argument, a plain non-empty string literal (its
    /// text as written, which the expansion repeats).
    private static func modelName(of node: AttributeSyntax, _ report: inout Report) -> (name: String, literal: String)?
    {
        guard let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first?.expression else {
            report.error(
                node, "mapped-model-name",
                "@MappedModel needs the model name the contexts build: @MappedModel(\"Name\")")
            return nil
        }
        guard let name = plainString(argument), !name.isEmpty, let literal = argument.as(StringLiteralExprSyntax.self)
        else {
            report.error(
                argument, "mapped-model-name",
                "@MappedModel's model name is a plain, non-empty string literal (contexts name it in \"@class\")")
            return nil
        }
        return (name, literal.trimmedDescription)
    }

    /// Struct or final class, not generic; `nil` (with the error said) for anything else.
    private static func kind(
        of declaration: some DeclGroupSyntax, _ node: AttributeSyntax, _ report: inout Report
    ) -> TypeKind? {
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            guard structDecl.genericParameterClause == nil else {
                report.error(
                    structDecl.genericParameterClause!, "mapped-model-generic",
                    "@MappedModel cannot bind a generic type: a model has one name and one set of property types; "
                        + "bind each specialization by hand with TypedModel")
                return nil
            }
            return .structure
        }
        if let classDecl = declaration.as(ClassDeclSyntax.self) {
            if let generics = classDecl.genericParameterClause {
                report.error(
                    generics, "mapped-model-generic",
                    "@MappedModel cannot bind a generic type: a model has one name and one set of property types; "
                        + "bind each specialization by hand with TypedModel")
                return nil
            }
            let isFinal = classDecl.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
            guard isFinal else {
                let keyword = classDecl.classKeyword
                report.error(
                    keyword, "mapped-model-final",
                    "@MappedModel binds a final class: a subclass would share its superclass's model and `init()`",
                    fixIt: FixIt(
                        message: Fix("make the class final"),
                        changes: [
                            .replace(
                                oldNode: Syntax(keyword),
                                newNode: Syntax(keyword.with(\.tokenKind, .identifier("final class"))))
                        ]))
                return nil
            }
            return .finalClass
        }
        let what =
            declaration.is(EnumDeclSyntax.self)
            ? "an enum (a MappableValue by its raw value, or a MappedUnion)"
            : declaration.is(ActorDeclSyntax.self) ? "an actor" : "this declaration"
        report.error(node, "mapped-model-kind", "@MappedModel applies to a struct or a final class, not to \(what)")
        return nil
    }

    /// `public ` for a public or open type, `package ` for a package one: the conformance's
    /// `mapping` is as visible as the type — as the least visible of it and the types it is
    /// nested in, since a public member of an internal type cannot name it.
    private static func accessLevel(of declaration: some DeclGroupSyntax, in context: some MacroExpansionContext)
        -> String
    {
        var level = rank(of: declaration.modifiers) ?? 0
        for enclosing in context.lexicalContext {
            if let group = enclosing.asProtocol((any DeclGroupSyntax).self) {
                let declared = rank(of: group.modifiers)
                // An extension without a modifier is as visible as the type it extends, unseen here.
                if declared == nil && group.is(ExtensionDeclSyntax.self) { continue }
                level = min(level, declared ?? 0)
            }
        }
        return ["", "package ", "public "][level]
    }

    /// 2 for public or open, 1 for package, 0 for internal and less, `nil` when nothing is said.
    private static func rank(of modifiers: DeclModifierListSyntax) -> Int? {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return 2
            case .keyword(.package): return 1
            case .keyword(.internal), .keyword(.fileprivate), .keyword(.private): return 0
            default: continue
            }
        }
        return nil
    }
}

enum TypeKind {
    case structure, finalClass

    var word: String { self == .structure ? "struct" : "class" }
}
