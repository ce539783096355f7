// The macros that write a Swift type's `MappedModel` conformance from the type itself. A product
// of its own, so that hosts that bind by hand never build swift-syntax: docs/swift.md.
@_exported public import Mappings

/// Makes a struct or a final class a `MappedModel` named `name`: every stored `var` is a
/// property of the model, under its own name, in declaration order; an instance is made with
/// the type's `init()`.
///
/// ```swift
/// @MappedModel("TweetModel")
/// struct Tweet {
///     var identifier = ""
///     @MappedProperty("text") var message = ""
///     var createdAt: Date?
///     @MappedIgnored var seen = false
/// }
/// ```
///
/// `static` and computed properties, and `let` constants with a value, are not model
/// properties. A stored property the macro cannot bind (a `let` without a value, a `lazy` or
/// `weak` one, a function, tuple or existential type) or a type without `init()` is an error at
/// compile time, with a fix-it where one fits; a property whose type is not a `MappableValue`
/// is the compiler's error, in the macro's expansion.
@attached(extension, conformances: MappedModel, names: named(mapping))
public macro MappedModel(_ name: String) = #externalMacro(module: "MappingsMacrosPlugin", type: "MappedModelMacro")

/// The model name of a property of a `@MappedModel` type, when it is not the Swift name.
@attached(peer)
public macro MappedProperty(_ name: String) =
    #externalMacro(module: "MappingsMacrosPlugin", type: "MappedPropertyMacro")

/// Leaves a stored property of a `@MappedModel` type out of the model: mapping never sets it,
/// reverse mapping never reads it.
@attached(peer)
public macro MappedIgnored() = #externalMacro(module: "MappingsMacrosPlugin", type: "MappedIgnoredMacro")
