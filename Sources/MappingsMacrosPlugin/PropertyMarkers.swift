import SwiftSyntax
import SwiftSyntaxMacros

/// `@MappedProperty("name")`: read by `@MappedModel`; on its own it adds nothing, and says
/// where it cannot apply. (On `var a, b: Int` the compiler refuses any attached macro itself.)
enum MappedPropertyMacro: PeerMacro {
    static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        var report = Report(context: context)
        guard let variable = storedProperty(declaration, node, "@MappedProperty", &report) else { return [] }
        let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first?.expression
        if argument.flatMap(plainString)?.isEmpty ?? true {
            report.error(
                argument.map(Syntax.init) ?? Syntax(node), "mapped-property-name",
                "@MappedProperty's model property name is a plain, non-empty string literal")
        }
        if variable.attribute(named: "MappedIgnored") != nil {
            report.error(
                node, "mapped-property-ignored", "a property is either @MappedIgnored or @MappedProperty, not both")
        }
        return []
    }
}

/// `@MappedIgnored`: read by `@MappedModel`; on its own it adds nothing, and says where it
/// cannot apply.
enum MappedIgnoredMacro: PeerMacro {
    static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        var report = Report(context: context)
        _ = storedProperty(declaration, node, "@MappedIgnored", &report)
        return []
    }
}

/// The declaration as a stored instance property, or `nil` after saying why it is not one.
private func storedProperty(
    _ declaration: some DeclSyntaxProtocol, _ node: AttributeSyntax, _ macro: String, _ report: inout Report
) -> VariableDeclSyntax? {
    guard let variable = declaration.as(VariableDeclSyntax.self) else {
        report.error(node, "mapped-property-placement", "\(macro) applies to a stored property of a @MappedModel type")
        return nil
    }
    if variable.isStatic {
        report.error(
            node, "mapped-property-static", "\(macro) has no effect on a static property: it is not in the model")
        return nil
    }
    if !variable.bindings.allSatisfy(\.isStored) {
        report.error(
            node, "mapped-property-computed",
            "\(macro) has no effect on a computed property: only stored properties are in the model")
        return nil
    }
    return variable
}
