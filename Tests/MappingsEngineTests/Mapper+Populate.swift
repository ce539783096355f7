import Testing

@testable import Mappings
@testable import MappingsEngine
@testable import MappingsJSON

extension Mapper {
    /// Maps `payload` into the object `existing` (a JSON object) describes, read back as
    /// `map --into` reads it (which must raise no issue), with the context `identifier`.
    func populate(_ payload: String, into existing: String, context identifier: String) throws -> MappingResult {
        let context = try self.context(identifier)
        let old = existingObject(from: try JSONParser.parse(existing), using: context)
        #expect(old.issues.isEmpty)
        return map(try JSONParser.parse(payload), into: old.value, using: context)
    }
}

extension MappingResult {
    /// The JSON text of the mapped object's property `name`; `?` when it has none.
    func propertyText(_ name: String) -> String {
        guard case .object(let object) = value, let found = object[name] else { return "?" }
        return JSONWriter.string(found)
    }
}
