import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin of `MappingsMacros`: the macros' implementations, run at compile time.
@main
struct MappingsMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        MappedModelMacro.self, MappedPropertyMacro.self, MappedIgnoredMacro.self,
    ]
}
