import Foundation
import MappingsJSON

/// What the values found at one place of sample payloads were: how many of each JSON kind, and
/// for objects and arrays the shapes inside. `mappings init` infers a property's type from it.
package struct ValueShape {
    /// How many times the place held a value (`null` included), or was missing from an object
    /// that could hold it.
    package var present = 0
    package var missing = 0
    package var nulls = 0
    package var bools = 0
    /// Whole numbers an Int64 holds, numbers a Double holds as written, and the others.
    package var integers = 0
    package var doubles = 0
    package var exactNumbers = 0
    /// The largest magnitude of the whole numbers, to tell when a Double would round them.
    package var largestInteger: UInt64 = 0
    package var strings: [String] = []
    package var numbers: [Double] = []
    package var object: ObjectShape?
    package var array: ArrayShape?

    package init() {}

    /// How many values were neither null nor missing.
    package var values: Int { present - nulls }

    /// Whether some sample lacked the value or held `null` there.
    package var isOptional: Bool { missing > 0 || nulls > 0 }

    /// The kinds of non-null values seen: each of bool, number, string, object, array.
    package var kinds: Int {
        [bools > 0, integers + doubles + exactNumbers > 0, !strings.isEmpty, object != nil, array != nil]
            .filter { $0 }.count
    }

    /// Adds one value held at this place.
    package mutating func add(_ value: JSONValue) {
        present += 1
        switch value {
        case .null: nulls += 1
        case .bool: bools += 1
        case .integer(let integer):
            integers += 1
            largestInteger = max(largestInteger, integer.magnitude)
            numbers.append(Double(integer))
        case .double(let double):
            doubles += 1
            numbers.append(double)
        case .number(let number):
            if let integer = number.int64, number.literal.allSatisfy({ $0.isNumber || $0 == "-" }) {
                integers += 1
                largestInteger = max(largestInteger, integer.magnitude)
                numbers.append(Double(integer))
            } else if number.isExactDouble {
                doubles += 1
                numbers.append(number.double)
            } else {
                exactNumbers += 1
            }
        case .string(let string): strings.append(string)
        case .object(let members):
            var shape = object ?? ObjectShape()
            shape.add(members)
            object = shape
        case .array(let elements):
            var shape = array ?? ArrayShape()
            shape.add(elements)
            array = shape
        }
    }
}

/// The objects seen at one place: their keys in the order they first came, each key's shape.
///
/// Keys compare by their code points, as the engine reads them: `"café"` written with U+00E9
/// and written with `e` + U+0301 are two keys (Swift's `==` would find them equal).
package struct ObjectShape {
    package var count = 0
    package var keys: [String] = []
    package var fields: [CodePointKey: ValueShape] = [:]

    /// The shape of the values at `key`.
    package func field(_ key: String) -> ValueShape? { fields[CodePointKey(key)] }

    package mutating func add(_ object: JSONObject) {
        count += 1
        var seen = Set<CodePointKey>()
        for (key, value) in object.members where seen.insert(CodePointKey(key)).inserted {
            let exact = CodePointKey(key)
            if fields[exact] == nil {
                keys.append(key)
                var shape = ValueShape()
                // Missing from every object before this one.
                shape.missing = count - 1
                fields[exact] = shape
            }
            fields[exact]!.add(value)
        }
        if seen.count < keys.count {
            for key in keys where !seen.contains(CodePointKey(key)) { fields[CodePointKey(key)]!.missing += 1 }
        }
    }
}

/// The arrays seen at one place: how many, and the shape of all their elements together.
package struct ArrayShape {
    package var count = 0
    /// The elements' shape, held in an array: a value cannot hold its own type directly.
    private var storage = [ValueShape()]
    package var elements: ValueShape {
        get { storage[0] }
        set { storage[0] = newValue }
    }

    package mutating func add(_ array: [JSONValue]) {
        count += 1
        for element in array { storage[0].add(element) }
    }
}
