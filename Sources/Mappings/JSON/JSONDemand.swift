/// Which parts of a payload a context reads, so that the parser builds only those.
///
/// A context reads a handful of keys out of records that often carry dozens; the rest is
/// checked (the payload must still be valid JSON) but never turned into values. A demand is
/// `everything` at a value the mapping hands on whole (to a converter, a transformer or a
/// JSON property), or the keys it reads of any object found at that place, directly or as
/// an element of an array (a key applied to an array reads it from each element).
/// Only key steps narrow a demand: an object whose members are counted or read by index is
/// kept whole, so counts and messages are those of the full payload.
indirect enum JSONDemand: Sendable, Equatable {
    case everything
    case members([Member])

    struct Member: Sendable, Equatable {
        let key: String
        /// `key`'s UTF-8 bytes, compared with the raw bytes of payload keys.
        let bytes: [UInt8]
        let demand: JSONDemand

        init(key: String, demand: JSONDemand) {
            self.key = key
            self.bytes = Array(key.utf8)
            self.demand = demand
        }
    }

    /// Both demands at once.
    func merged(with other: JSONDemand) -> JSONDemand {
        guard case .members(var mine) = self, case .members(let theirs) = other else { return .everything }
        for member in theirs {
            if let index = mine.firstIndex(where: { $0.key.hasSameCodePoints(as: member.key) }) {
                mine[index] = Member(key: member.key, demand: mine[index].demand.merged(with: member.demand))
            } else {
                mine.append(member)
            }
        }
        return .members(mine)
    }

    /// What a context reads of the value it maps, following `@object` contexts; a context
    /// reached again while its own demand is being worked out (a recursive model) reads
    /// everything there.
    static func of(context index: Int, in contexts: [CompiledContext]) -> JSONDemand {
        var visiting: Set<Int> = []
        return of(context: index, in: contexts, visiting: &visiting)
    }

    private static func of(context index: Int, in contexts: [CompiledContext], visiting: inout Set<Int>) -> JSONDemand {
        guard visiting.insert(index).inserted else { return .everything }
        defer { visiting.remove(index) }
        var demand = JSONDemand.members([])
        for rule in contexts[index].rules {
            var leaf = JSONDemand.everything
            // A dictionary of objects reads every key of its value: only arrays pass a demand on.
            let isDictionary = if case .dictionary? = rule.type?.unwrapped { true } else { false }
            if rule.transformer == nil, !isDictionary, let object = rule.object, let nested = object.context {
                leaf = of(context: nested, in: contexts, visiting: &visiting)
            }
            demand = demand.merged(with: along(rule.source.components[...], leaf: leaf))
            if case .everything = demand { return .everything }
        }
        return demand
    }

    /// The demand at the start of `components` when the value at their end needs `leaf`.
    private static func along(_ components: ArraySlice<PayloadKeyPath.Component>, leaf: JSONDemand) -> JSONDemand {
        guard let first = components.first else { return leaf }
        guard case .key(let key) = first else { return .everything }
        return .members([Member(key: key, demand: along(components.dropFirst(), leaf: leaf))])
    }
}
