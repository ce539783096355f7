package import MappingsJSON
import MappingsModel

/// One value of a `.mappings` file, with the place it was written and how it got where it is.
struct SyntaxNode: Sendable {
    enum Kind: Sendable {
        case object([SyntaxMember])
        case array([SyntaxNode])
        case string(String)
        /// The literal as written, already checked against JSON's number grammar.
        case number(String)
        case bool(Bool)
        case null
    }

    var kind: Kind
    var location: SourceLocation
    /// The `@inherits` steps that copied this node into the tree it now stands in, nearest first.
    var inheritedVia: [InheritanceStep] = []

    init(_ kind: Kind, at location: SourceLocation) {
        self.kind = kind
        self.location = location
    }

    var members: [SyntaxMember]? {
        if case .object(let members) = kind { return members }
        return nil
    }

    var stringValue: String? {
        if case .string(let string) = kind { return string }
        return nil
    }

    /// The member named `key`, if this is an object that has one.
    func member(_ key: String) -> SyntaxMember? {
        members?.first(where: { $0.key == key })
    }

    /// The strings of a value written as one string or an array of them (`@import`, `@inherits`).
    ///
    /// - Parameters:
    ///   - whole: the message for a value of the wrong kind, ending before "not an array".
    ///   - element: the message for an element that is not a non-empty string, likewise.
    func stringList(
        whole: String, element: String, diagnostics: inout [Diagnostic]
    ) -> [(value: String, location: SourceLocation)] {
        let elements: [SyntaxNode]
        switch kind {
        case .string: elements = [self]
        case .array(let array): elements = array
        default:
            diagnostics.append(Diagnostic(message: "\(whole), not \(typeName)", location: location))
            return []
        }
        var strings: [(String, SourceLocation)] = []
        for item in elements {
            guard let string = item.stringValue, !string.isEmpty else {
                let found = item.stringValue == nil ? item.typeName : "an empty string"
                diagnostics.append(Diagnostic(message: "\(element), not \(found)", location: item.location))
                continue
            }
            strings.append((string, item.location))
        }
        return strings
    }

    /// What kind of JSON value this is, as messages say it.
    var typeName: String {
        switch kind {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }

    /// This node and every node below it, marked as brought in by `step`.
    func inherited(via step: InheritanceStep) -> SyntaxNode {
        var copy = self
        copy.inheritedVia.append(step)
        switch kind {
        case .object(let members):
            copy.kind = .object(
                members.map { member in
                    var member = member
                    member.value = member.value.inherited(via: step)
                    return member
                })
        case .array(let elements):
            copy.kind = .array(elements.map { $0.inherited(via: step) })
        default:
            break
        }
        return copy
    }
}

/// A key and its value in a `.mappings` object.
struct SyntaxMember: Sendable {
    var key: String
    var keyLocation: SourceLocation
    var value: SyntaxNode
}

/// One `@inherits` that copied content from a parent: which parent, and where it was asked for.
package struct InheritanceStep: Sendable, Hashable {
    /// The reference as written, such as `$Base` or `$Templates.user`.
    package var parent: String
    /// Where the `@inherits` naming the parent stands.
    package var location: SourceLocation
}
