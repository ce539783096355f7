// The layers below, re-exported: a host writes `import Mappings` and sees the whole public API.
@_exported public import MappingsCompiler
@_exported public import MappingsEngine
@_exported public import MappingsJSON
@_exported public import MappingsModel
