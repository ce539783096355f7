internal import CLuaSandbox
import Foundation

/// Runs Lua on a thread with enough stack for Lua's C recursion (about 512 KiB at its limit).
///
/// The calling thread is used when it has at least `minimumStack` bytes left, which is the
/// case for the main thread, `Thread`, Dispatch and Swift concurrency threads on Linux
/// (8 MiB each); otherwise the call runs on a fresh thread with `largeStack` bytes.
enum LuaThread {
    static let minimumStack = 1 << 20
    static let largeStack = 8 << 20

    static func withLargeStack<T>(_ body: () -> T) -> T {
        if clua_stack_remaining() >= minimumStack { return body() }
        return withoutActuallyEscaping(body) { body in
            let box = Box(body: body)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                // This thread ends with the call: what it used goes back to the shared pool.
                LuaThreadEngines.current.transient = true
                box.result = box.body?()
                box.body = nil  // the body must not outlive this call
                done.signal()
            }
            thread.stackSize = largeStack
            thread.start()
            done.wait()
            guard let result = box.result else { preconditionFailure("the Lua thread ended without a result") }
            return result
        }
    }

    /// Carries the body and its result across to the other thread, which runs while this one waits.
    private final class Box<T>: @unchecked Sendable {
        var body: (() -> T)?
        var result: T?

        init(body: @escaping () -> T) {
            self.body = body
        }
    }
}
