import MappingsCompiler
import Synchronization

/// The plan's allow-list: what a plan does with each field of a compiled entry (`Rule`) and
/// of its policies. A plan compiles an entry only when every field that holds something is
/// listed here: a field a later change adds to `Rule` is no field a plan knows, so an entry
/// that sets it sends its context to the general engine (`addProperty` says which field) until
/// someone decides, here and in `addProperty`, what a plan does with it. `FastPlanTests` fails
/// while a field of `Rule` or `EntryPolicies` is not listed.
enum PlanFeatures {
    enum Decision {
        /// `PlanTables.addProperty` reads it: the plan writes what it says, or refuses the entry
        /// (a union, `@identity`, `@null: clear`…) with the reason.
        case compiled
        /// It changes nothing a plan writes: reverse mapping, messages and schemas, mapping
        /// into existing objects (a plan always writes new ones), a form compiled into another
        /// field.
        case neutral
    }

    /// The fields of `Rule`.
    static let rule: [String: Decision] = [
        "target": .compiled, "source": .compiled, "fallbacks": .compiled, "isOptional": .compiled,
        "defaultValue": .compiled,
        // The default as written: `defaultValue` is what a plan writes.
        "defaultJSON": .neutral,
        "transformer": .compiled, "transform": .compiled,
        "reverseTransformer": .neutral, "reverseTransform": .neutral,
        "object": .compiled,
        // Both say how a collection joins one already in an existing object.
        "clearContent": .neutral, "insertContentAtBegin": .neutral,
        "type": .compiled,
        // `dateFormats` is its compiled form.
        "dateFormat": .neutral, "dateFormats": .compiled,
        "provenance": .neutral, "valueMap": .compiled,
        // Where an automatic entry came from: its key path and type are compiled already.
        "keyStyle": .neutral,
        "policies": .compiled, "reverseFanOut": .neutral, "isForwardOnly": .neutral,
        "selection": .compiled,
        // `refusal(of:)` sends an entry with `@lookup` to the general engine.
        "lookup": .compiled,
    ]

    /// The fields of `EntryPolicies` (`Rule.policies`). `onError` is compiled by what a plan
    /// never does: a value that fails its conversion gives the record to the general engine,
    /// which applies the policy.
    static let policies: [String: Decision] = [
        "identity": .compiled, "onElementError": .compiled, "onError": .compiled, "null": .compiled,
    ]

    /// Why a plan does not know `rule`: the first of its fields (or of its policies') that the
    /// tables do not list and that holds something; `nil` when it knows every one.
    static func unknownFeature(of rule: Rule) -> String? {
        // A field's label is its type's: once every one is found listed, no entry can hold an
        // unknown one, and the reflection (about 20 µs an entry, a millisecond of a start) is
        // not paid again.
        switch listing.load(ordering: .relaxed) {
        case 1:
            return nil
        case 0:
            let listed =
                Mirror(reflecting: rule).children.allSatisfy { $0.label.map { Self.rule[$0] != nil } ?? true }
                && Mirror(reflecting: rule.policies).children.allSatisfy {
                    $0.label.map { policies[$0] != nil } ?? true
                }
            listing.store(listed ? 1 : 2, ordering: .relaxed)
            if listed { return nil }
        default:
            break
        }
        return unknownField(of: rule, in: Self.rule)
            ?? unknownField(of: rule.policies, in: policies).map { "policies." + $0 }
    }

    /// Whether every field of `Rule` and `EntryPolicies` is in the tables: 0 not looked at yet,
    /// 1 every one, 2 not every one (each entry is then looked at).
    private static let listing = Atomic<Int>(0)

    /// The first stored property of `value` missing from `table` that holds something (is not
    /// nil, false or empty).
    static func unknownField(of value: Any, in table: [String: Decision]) -> String? {
        for child in Mirror(reflecting: value).children {
            guard let label = child.label, table[label] == nil, holdsSomething(child.value) else { continue }
            return label
        }
        return nil
    }

    /// Whether a field's value says anything: not `nil`, `false` or an empty collection.
    static func holdsSomething(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return !mirror.children.isEmpty }
        if let flag = value as? Bool { return flag }
        if let collection = value as? any Collection { return !collection.isEmpty }
        return true
    }
}
