import Mappings
import Synchronization

/// A lookup table's wire for the interpreters (`LookupTable.keyedRows`), encoded once, when the
/// first of them adds the table: a catalog whose scripts never run pays nothing for it.
final class LuaTableWire: Sendable {
    let table: LookupTable
    private let encoded = Mutex<[UInt8]?>(nil)

    init(_ table: LookupTable) {
        self.table = table
    }

    var bytes: [UInt8] {
        encoded.withLock { encoded in
            if let encoded { return encoded }
            let wire = LuaWire.encode(table.keyedRows)
            encoded = wire
            return wire
        }
    }
}
