public import MappingsJSON
package import MappingsModel

/// A plugin transformer: converts a value before the engine converts it to the property's type.
///
/// Hosts register Swift closures under a `@transformClass` and `@transformSelector`; the Lua
/// provider plugs into the same protocol. A transformer throws to fail: the failure becomes
/// an issue for that value (always, even on an optional entry), and mapping goes on.
public protocol Transformer: Sendable {
    /// Returns the new value for `value`; `userData` is the entry's `@transformUserData`.
    func transform(_ value: JSONValue, userData: JSONValue?) throws -> JSONValue

    /// The transformer to use for one entry, given its `@transformUserData`; called once per
    /// entry when the catalog compiles, so a transformer can prepare the user data once
    /// instead of on every value. The default returns `self`.
    func bound(to userData: JSONValue?) -> any Transformer

    /// Where the transformer is defined, for explanations (`scripts/Geo.lua:12`); `nil` by default.
    var origin: String? { get }
}

extension Transformer {
    public func bound(to userData: JSONValue?) -> any Transformer { self }
    public var origin: String? { nil }
}

/// A transformer made of a Swift closure.
package struct ClosureTransformer: Transformer {
    private let body: @Sendable (JSONValue, JSONValue?) throws -> JSONValue

    package init(_ body: @escaping @Sendable (JSONValue, JSONValue?) throws -> JSONValue) {
        self.body = body
    }

    package func transform(_ value: JSONValue, userData: JSONValue?) throws -> JSONValue {
        try body(value, userData)
    }
}

/// Why a transformer refused a value, in words for the report: what the Lua bridge throws
/// (hosts throw `MappingsError.transformerFailed(_:)`).
package struct TransformerFailure: Error, Sendable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}

extension Error {
    /// What the error says inside a transformer issue: a `MappingsError`'s messages, else its description.
    package var transformerReason: String {
        (self as? MappingsError)?.summary ?? "\(self)"
    }
}

/// A transformer that prepares itself for the type of the entry it serves as well as its user
/// data: how the Lua bridge learns to hand a `Decimal` entry's numbers to a script as their
/// exact digits. The catalog binds with this when a transformer offers it.
package protocol TypedTransformer: Transformer {
    func bound(to userData: JSONValue?, type: TypeReference?) -> any Transformer
}

/// A transformer that can be given its value as JSON text: how a fast plan hands a span of the
/// record to a Lua script, which reads it through a view, without the value ever being built.
package protocol TextTransformer: Transformer {
    /// Returns the new value for the value whose JSON text is `text` (valid JSON), as
    /// `transform(_:userData:)` would for that value. Whatever the transformer reads of it, it
    /// checks as it reads (a key written twice, nesting): the engine does not look inside.
    func transform(jsonText text: UnsafeBufferPointer<UInt8>, userData: JSONValue?) throws -> JSONValue
}

/// A transformer that answers many values in one call: a Lua function, whose calls then cost one
/// C call (with process isolation, one request to the worker) for the lot. What it answers for
/// each value is what it would answer called alone.
package protocol BatchTransformer: TextTransformer {
    /// One answer per input, in order. `userData` is the entry's, as bound.
    func transform(batch inputs: [BatchInput]) -> [BatchAnswer]

    /// Whether calls in batches cost less than one at a time: a fast plan then makes a lane's
    /// calls ahead, a batch per transformer.
    var prefersBatches: Bool { get }
}

/// One value of a batch: its JSON text (valid for the length of the batch call), or the value.
package enum BatchInput {
    case text(UnsafeBufferPointer<UInt8>)
    case value(JSONValue)
}

/// What a batch gave one value: the result, and how to write what its call logged (called when
/// the record the value belongs to is mapped, so that the lines keep their record's place).
package struct BatchAnswer: @unchecked Sendable {
    // `@unchecked`: an answer belongs to the record it was made for, on one thread.
    package var result: Result<JSONValue, any Error>
    package var emitLog: (() -> Void)?

    package init(result: Result<JSONValue, any Error>, emitLog: (() -> Void)? = nil) {
        self.result = result
        self.emitLog = emitLog
    }
}
