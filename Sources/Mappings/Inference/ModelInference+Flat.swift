import Foundation
import MappingsJSON

extension ModelInference {
    /// A key a model reads: the key, the keys of the objects it is inside (a flat model's), and
    /// the values found there.
    struct Slot {
        var key: String
        var parents: [String] = []
        var field: ValueShape
        /// The name the property would take: the key's, after its parents' (`user.login` → `userLogin`).
        var preferredName: String
        /// Whether an object it is inside was missing or null in some record.
        var parentAbsent = false

        init(key: String, parents: [String] = [], field: ValueShape, prefix: String? = nil, parentAbsent: Bool = false)
        {
            self.key = key
            self.parents = parents
            self.field = field
            self.parentAbsent = parentAbsent
            let own = InferredNames.property(key)
            preferredName = prefix.map { $0 + InferredNames.upperFirst(own) } ?? own
        }
    }

    /// The keys of a flat model: each key of `shape`, an object's keys in its place (depth
    /// first), except an object whose keys all start with a digit (a dictionary, `[String: T]`)
    /// or that held something else too (JSON).
    static func flatSlots(
        of shape: ObjectShape, parents: [String], prefix: String?, parentAbsent: Bool = false
    ) -> [Slot] {
        var slots: [Slot] = []
        for key in shape.keys where !key.isEmpty {
            let field = shape.field(key)!
            let name =
                prefix.map { $0 + InferredNames.upperFirst(InferredNames.property(key)) }
                ?? InferredNames.property(key)
            if let object = field.object, field.kinds == 1, object.keys.contains(where: { !$0.isEmpty }),
                !isDictionary(object)
            {
                slots += flatSlots(
                    of: object, parents: parents + [key], prefix: name,
                    parentAbsent: parentAbsent || field.isOptional)
            } else {
                slots.append(Slot(key: key, parents: parents, field: field, prefix: prefix, parentAbsent: parentAbsent))
            }
        }
        return slots
    }

    /// The property that identifies a record of the flat model `model`: `id`, else `<model>_id`
    /// (`order_id`, `orderId`), when every one of `count` records holds it — an `Int` or a
    /// `String` — and no two the same; `nil` when none does.
    static func identity(of properties: [InferredProperty], slots: [Slot], model: String, count: Int) -> String? {
        let own = InferredNames.lowerFirst(model) + "Id"
        let candidates = zip(properties, slots).filter { property, slot in
            slot.parents.isEmpty && (slot.key.lowercased() == "id" || property.name == own)
        }
        for (property, slot) in candidates.sorted(by: { $0.0.name == "id" && $1.0.name != "id" }) {
            let field = slot.field
            guard !property.isOptional, field.values == count else { continue }
            switch property.type {
            case .scalar("Int"):
                // Compared as written: beyond 2^53 two Doubles may be one, so only smaller ones count.
                guard field.largestInteger <= 1 << 53, Set(field.numbers).count == count else { continue }
            case .scalar("String"):
                guard Set(field.strings.map { CodePointKey($0) }).count == count else { continue }
            default: continue
            }
            return property.name
        }
        return nil
    }
}
