import Foundation
import Synchronization

/// The in-process interpreters a thread keeps for itself, one per `LuaScripts`: a call takes
/// its thread's interpreter back without a lock, a dictionary or a hash (a stream's lane calls
/// from one thread, so its interpreter stays its own), and gives it back the same way.
///
/// An interpreter parked here is this thread's until the thread ends (then freed with it) or
/// until the thread first calls a `LuaScripts` made later, when those of scripts that are gone
/// are freed. At most `LuaScripts.keptIdle` threads keep one for the same scripts. A thread
/// `LuaThread` starts for one call keeps nothing: what it used goes back to the shared pool.
/// Only its thread touches it (hence no run-time exclusivity checks).
final class LuaThreadEngines {
    /// The scripts each entry is kept for, by their `number`; beside it, the scripts themselves
    /// (weakly: to tell those that are gone) and the interpreter (`nil` while a call uses it).
    @exclusivity(unchecked) private var numbers: [UInt64] = []
    @exclusivity(unchecked) private var owners: [Weak] = []
    @exclusivity(unchecked) private var engines: [LuaInterpreter?] = []

    private struct Weak {
        weak var scripts: LuaScripts?
    }

    /// A thread that lives for one call (`LuaThread.withLargeStack`'s): it keeps nothing.
    var transient = false

    deinit {
        // The thread ends: its slots are free for other threads of the scripts still alive.
        for owner in owners { owner.scripts?.threadSlots.subtract(1, ordering: .relaxed) }
    }

    /// The calling thread's, made on its first call.
    static var current: LuaThreadEngines {
        if let found = pthread_getspecific(key) {
            return Unmanaged<LuaThreadEngines>.fromOpaque(found).takeUnretainedValue()
        }
        let made = LuaThreadEngines()
        pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
        return made
    }

    /// The key of every thread's value; its destructor frees what the thread kept.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { value in
            guard let value else { return }
            Unmanaged<LuaThreadEngines>.fromOpaque(value).release()
        }
        precondition(status == 0, "cannot create the key of the threads' Lua interpreters")
        return key
    }()

    /// The interpreter this thread kept for the scripts numbered `scripts`, taken out.
    @inline(__always)
    func take(_ scripts: UInt64) -> LuaInterpreter? {
        guard let index = numbers.firstIndex(of: scripts) else { return nil }
        return engines[index].take()
    }

    /// Keeps `engine` for `owner` when the thread keeps none for it yet; `false` when it does
    /// (the caller gives it to the shared pool).
    func keep(_ engine: LuaInterpreter, for owner: LuaScripts) -> Bool {
        guard !transient else { return false }
        if let index = numbers.firstIndex(of: owner.number) {
            guard engines[index] == nil else { return false }
            engines[index] = engine
            return true
        }
        // As many threads as the pool keeps idle interpreters may keep one each; the others give
        // theirs back to the pool.
        guard owner.threadSlots.add(1, ordering: .relaxed).newValue <= LuaScripts.keptIdle else {
            owner.threadSlots.subtract(1, ordering: .relaxed)
            return false
        }
        // Interpreters of scripts no one holds any more go when the thread starts keeping a new one.
        for index in owners.indices.reversed() where owners[index].scripts == nil {
            numbers.remove(at: index)
            owners.remove(at: index)
            engines.remove(at: index)
        }
        numbers.append(owner.number)
        owners.append(Weak(scripts: owner))
        engines.append(engine)
        return true
    }
}
