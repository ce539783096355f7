import MappingsCompiler
import MappingsJSON
import MappingsModel

/// `"@filter"`: Lua that keeps or drops a payload before its context maps it.
extension MappingRun {
    /// Whether `context`'s filter keeps `source` (`true` without one): it drops it when it
    /// answers `false` or `nil`. A filter that fails keeps it, with an error issue that rejects
    /// the record and says why.
    mutating func keeps(
        _ context: CompiledContext, _ source: JSONValue, path: () -> String, property: () -> String
    ) -> Bool {
        guard let filter = context.filter else { return true }
        let rule = context.filterProvenance ?? context.provenance
        guard let transform = context.filterTransform else { return true }
        do {
            let answer = try memo?.call(transform, filter, source) ?? transform.transform(source, userData: nil)
            switch answer {
            case .null, .bool(false): return false
            default: return true
            }
        } catch {
            issues.append(
                MappingIssue(
                    kind: .transformerFailed, path: path(), property: property(), rule: rule, value: nil,
                    message: "@filter failed: \(error.transformerReason)"))
            return true
        }
    }

    /// Whether the nested context `object` builds with drops `value`; an `info` issue says so.
    mutating func drops(
        _ value: JSONValue, with object: ObjectRule, path: () -> String, property: () -> String
    ) -> Bool {
        guard let index = object.context, mapper.catalog.contexts[index].filter != nil else { return false }
        return dropsPayload(mapper.catalog.contexts[index], value, path: path, property: property)
    }

    /// Whether `context`'s filter drops `value`, an element of a collection; an `info` issue says so.
    mutating func dropsPayload(
        _ context: CompiledContext, _ value: JSONValue, path: () -> String, property: () -> String
    ) -> Bool {
        guard !keeps(context, value, path: path, property: property) else { return false }
        issues.append(
            MappingIssue(
                kind: .filtered, path: path(), property: property(),
                rule: context.filterProvenance ?? context.provenance, value: nil,
                message: "dropped by \"@filter\": left out", severity: .info))
        return true
    }
}
