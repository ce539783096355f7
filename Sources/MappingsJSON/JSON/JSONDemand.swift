/// Which parts of a payload a context reads, so that the parser builds only those.
///
/// A context reads a handful of keys out of records that often carry dozens; the rest is
/// checked (the payload must still be valid JSON) but never turned into values. A demand is
/// `everything` at a value the mapping hands on whole (to a converter, a transformer or a
/// JSON property), or the keys it reads of any object found at that place, directly or as
/// an element of an array (a key applied to an array reads it from each element).
/// Only key steps narrow a demand: an object whose members are counted or read by index is
/// kept whole, so counts and messages are those of the full payload.
///
/// `keepsOtherKeys` is for a context that checks its payload's keys (`"@unknownKeys"`): the
/// keys it does not read are kept too, each with a `null` value (their values are checked
/// and skipped, never built), so the check sees every key for the price of its name.
package indirect enum JSONDemand: Sendable, Equatable {
    case everything
    case members([Member], keepsOtherKeys: Bool = false)

    package struct Member: Sendable, Equatable {
        package let key: String
        /// `key`'s UTF-8 bytes, compared with the raw bytes of payload keys.
        package let bytes: [UInt8]
        package let demand: JSONDemand

        package init(key: String, demand: JSONDemand) {
            self.key = key
            self.bytes = Array(key.utf8)
            self.demand = demand
        }
    }

    /// Both demands at once.
    package func merged(with other: JSONDemand) -> JSONDemand {
        Self.merging([self, other])
    }

    /// All of `demands` at once, their members in the order they first come: what
    /// `merged(with:)` of each in turn makes, in time linear in their members (a context of
    /// 20,000 entries merges 20,000 demands).
    package static func merging(_ demands: [JSONDemand]) -> JSONDemand {
        var members: [Member] = []
        var demandsOfMember: [[JSONDemand]] = []
        var positions: [CodePointKey: Int] = [:]
        var keepsOtherKeys = false
        for demand in demands {
            guard case .members(let theirs, let keeps) = demand else { return .everything }
            keepsOtherKeys = keepsOtherKeys || keeps
            for member in theirs {
                if let index = positions[CodePointKey(member.key)] {
                    demandsOfMember[index].append(member.demand)
                } else {
                    positions[CodePointKey(member.key)] = members.count
                    members.append(member)
                    demandsOfMember.append([member.demand])
                }
            }
        }
        for index in members.indices where demandsOfMember[index].count > 1 {
            members[index] = Member(key: members[index].key, demand: merging(demandsOfMember[index]))
        }
        return .members(members, keepsOtherKeys: keepsOtherKeys)
    }
}
