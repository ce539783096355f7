import Foundation
import MappingsJSON

/// Infers models from sample records: every key of every object becomes a property, typed by
/// the values it held (`ValueShape`). Objects become models, named after their key; objects
/// whose keys all start with a digit become dictionaries. A model that comes out the same as
/// one already named is that model.
package struct ModelInference {
    /// The models, the root's first, the others in the order their keys were met.
    package private(set) var models: [InferredModel] = []
    /// Types forced weaker, by model and property (`InitProject` sets them when a sample's
    /// value does not convert).
    package var overrides: [String: [String: InferredType]] = [:]
    /// Properties forced optional, by model.
    package var optional: [String: Set<String>] = [:]
    /// What was left out, and why, for `init` to say.
    package private(set) var notes: [String] = []
    /// Whether the root model is flat, a table's row (`init --flat`): the scalars of nested
    /// objects are its own properties, read by key path, and collections of objects are JSON.
    package var flat = false
    /// The root's property guessed to identify a record (flat only): `id` or `<model>_id`,
    /// an `Int` or `String` held by every record, no two the same.
    package private(set) var identity: String?

    package init() {}

    /// The models of `records` (objects), the root one named `root`.
    package mutating func infer(_ records: [JSONObject], root: String) {
        models = []
        notes = []
        identity = nil
        var shape = ObjectShape()
        for record in records { shape.add(record) }
        _ = model(of: shape, named: root, parent: nil)
    }

    /// Names the model of `shape` (`preferred`, or one made unique) and adds it, with the models
    /// of its properties before it is added; returns its name.
    private mutating func model(of shape: ObjectShape, named preferred: String, parent: String?) -> String {
        let taken = Set(models.map(\.name))
        // A name of its own first, so that a property holding the same model can name it.
        var name = preferred
        if taken.contains(name) {
            // A weather in a Weather is a WeatherItem; a user in an Issue, when User is taken, an IssueUser.
            let qualified = parent.map { $0 == preferred ? preferred + "Item" : $0 + preferred } ?? preferred
            name = InferredNames.unique(qualified, in: taken)
        }
        let index = models.count
        models.append(InferredModel(name: name, properties: []))
        var properties: [InferredProperty] = []
        // The empty key: a key path of it reads the whole object, so no entry can read it.
        let keys = shape.keys.filter { !$0.isEmpty }
        if keys.count < shape.keys.count {
            let note = "the key \"\" of \(name) cannot be read by a key path: left out"
            if !notes.contains(note) { notes.append(note) }
        }
        // A key that is its property's name already keeps it (`userId` beside `user_id`); the
        // others get theirs in payload order, numbered when taken. Keys are told apart by their
        // code points, names as Swift compares them: of two keys equal as Unicode but not as
        // bytes (`café` NFC and NFD), the second is numbered.
        let slots =
            flat
            ? Self.flatSlots(of: shape, parents: [], prefix: nil) : keys.map { Slot(key: $0, field: shape.field($0)!) }
        var names = Set<String>()
        var chosen = [String?](repeating: nil, count: slots.count)
        for (index, slot) in slots.enumerated() where slot.parents.isEmpty {
            let own = InferredNames.property(slot.key)
            if own == slot.key, names.insert(own).inserted { chosen[index] = own }
        }
        for (index, slot) in slots.enumerated() where chosen[index] == nil {
            let name = InferredNames.unique(slot.preferredName, in: names)
            names.insert(name)
            chosen[index] = name
        }
        for (slot, propertyName) in zip(slots, chosen) {
            let propertyName = propertyName!
            let (type, format) =
                overrides[name]?[propertyName].map { ($0, nil) }
                ?? self.type(of: slot.field, key: slot.key, parent: name)
            properties.append(
                InferredProperty(
                    name: propertyName, key: slot.key, type: type,
                    isOptional: slot.field.isOptional || slot.parentAbsent
                        || optional[name]?.contains(propertyName) == true,
                    dateFormat: format, parents: slot.parents, values: slot.field.values,
                    absent: shape.count - slot.field.values))
        }
        if flat, parent == nil {
            identity = Self.identity(of: properties, slots: slots, model: name, count: shape.count)
        }
        models[index].properties = properties
        // A model already inferred with the same properties (a user, an assignee, a closer) is
        // that model: use it, and drop this copy.
        if !properties.isEmpty, let same = models.first(where: { $0.name != name && $0.properties == properties }) {
            models.remove(at: index)
            return same.name
        }
        return name
    }

    /// The type of the values of `field` (found at `key` in objects of the model `parent`), and
    /// its date format when it is a date.
    private mutating func type(of field: ValueShape, key: String, parent: String) -> (InferredType, String?) {
        guard field.values > 0, field.kinds == 1 else { return (.scalar("JSON"), nil) }
        if field.bools > 0 { return (.scalar("Bool"), nil) }
        // A flat model has no nested ones: objects in arrays are kept as JSON (a dictionary's
        // scalars stay a dictionary).
        if flat, field.array?.elements.object != nil || field.object.map({ !Self.isDictionary($0) }) == true {
            return (.scalar("JSON"), nil)
        }
        if let object = field.object {
            // Only ever empty: nothing to name properties after.
            if object.keys.isEmpty { return (.scalar("JSON"), nil) }
            if Self.isDictionary(object) {
                var values = ValueShape()
                for key in object.keys { values.merge(object.field(key)!) }
                let (type, format) = self.type(of: values, key: InferredNames.singular(key), parent: parent)
                return (.dictionary(type, optionalValues: values.nulls > 0), format)
            }
            return (.model(model(of: object, named: InferredNames.model(key), parent: parent)), nil)
        }
        if let array = field.array {
            let elements = array.elements
            guard elements.values > 0 else { return (.array(.scalar("JSON"), optionalElements: false), nil) }
            let (type, format) = self.type(
                of: elements, key: InferredNames.singular(key), parent: parent)
            return (.array(type, optionalElements: elements.nulls > 0), format)
        }
        if !field.strings.isEmpty { return Self.stringType(field.strings, key: key) }
        return numberType(field, key: key)
    }

    /// Whether objects at one place are a dictionary (`[String: T]`): every key starts with a digit.
    static func isDictionary(_ object: ObjectShape) -> Bool {
        object.keys.allSatisfy { $0.first?.isNumber == true }
    }

    /// `Int` for whole numbers, `Double` when some have a fraction (and a Double holds every
    /// whole one), else `Decimal`; whole numbers in the range of Unix times at a key that names
    /// a time are dates.
    private func numberType(_ field: ValueShape, key: String) -> (InferredType, String?) {
        if field.exactNumbers > 0 { return (.scalar("Decimal"), nil) }
        if field.doubles == 0 {
            if let format = DateSamples.unixFormat(field.numbers, key: key) { return (.scalar("Date"), format) }
            return (.scalar("Int"), nil)
        }
        return field.largestInteger > 1 << 53 ? (.scalar("Decimal"), nil) : (.scalar("Double"), nil)
    }

    /// `Date` when every string is a date in one format (a day without a time only at a key
    /// that names one), `URL` when every one is an absolute http(s) URL written as `URL` writes
    /// it, else `String`.
    private static func stringType(_ strings: [String], key: String) -> (InferredType, String?) {
        if let format = DateSamples.format(of: strings, key: key) { return (.scalar("Date"), format) }
        if strings.allSatisfy(Self.isURL) { return (.scalar("URL"), nil) }
        return (.scalar("String"), nil)
    }

    private static func isURL(_ string: String) -> Bool {
        guard string.hasPrefix("https://") || string.hasPrefix("http://"),
            !string.contains(where: { $0.isWhitespace }), let url = URL(string: string), url.host != nil
        else { return false }
        return url.absoluteString == string
    }
}

extension ValueShape {
    /// Adds the values of `other`, as if they had been seen here.
    mutating func merge(_ other: ValueShape) {
        present += other.present
        missing += other.missing
        nulls += other.nulls
        bools += other.bools
        integers += other.integers
        doubles += other.doubles
        exactNumbers += other.exactNumbers
        largestInteger = max(largestInteger, other.largestInteger)
        strings += other.strings
        numbers += other.numbers
        if let object = other.object {
            var merged = self.object ?? ObjectShape()
            merged.merge(object)
            self.object = merged
        }
        if let array = other.array {
            var merged = self.array ?? ArrayShape()
            merged.count += array.count
            merged.elements.merge(array.elements)
            self.array = merged
        }
    }
}

extension ObjectShape {
    /// Adds the objects of `other`: a key one side lacks is missing from that side's objects.
    mutating func merge(_ other: ObjectShape) {
        for key in keys where other.field(key) == nil { fields[CodePointKey(key)]!.missing += other.count }
        for key in other.keys {
            let exact = CodePointKey(key)
            if fields[exact] == nil {
                keys.append(key)
                var shape = ValueShape()
                shape.missing = count
                fields[exact] = shape
            }
            fields[exact]!.merge(other.fields[exact]!)
        }
        count += other.count
    }
}
