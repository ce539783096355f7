import Foundation
import MappingsCompiler
import MappingsJSON

/// The texts of the files `mappings init` writes, laid out as `mappings fmt` lays them out.
struct InitTexts {
    let models: [InferredModel]
    let root: String
    let sampleName: String
    /// The root's property that identifies a record, for a table's upserts (`--flat`).
    var identity: String?

    /// The three files; `tests` is the members of the root context's `@tests` array.
    func files(tests: String) -> [(path: String, text: String)] {
        [
            ("contexts/models.mappings", Self.formatted(modelsText)),
            ("contexts/\(root).mappings", Self.formatted(contextsText(tests: tests))),
            ("scripts/Transformers.lua", Self.script),
        ]
    }

    /// How many levels a context file puts a test's input in: the file, `$ROOT`, `@tests`, the test.
    static let testsDepth = 4

    /// One `@tests` member: the record, and the output it maps to (JSON text).
    func test(name: String, input: JSONObject, output: String) -> String {
        "{\"name\": \(Self.string(name)), \"input\": \(Self.json(.object(input))), \"output\": \(output)}"
    }

    private var modelsText: String {
        var text = """
            // The models `mappings init` inferred from \(sampleName): each key a property, typed by the
            // values it had there — a key missing or null in some record is optional (`?`), whole and
            // fractional numbers together are `Double`, dates in one format are `Date`, objects are
            // models and arrays of them `[Model]`. Edit the types here: docs/language.md, "Types".
            {
                "@models": {

            """
        text += models.map { model in
            "\(Self.string(model.name)): {"
                + model.properties.map { property in
                    Self.string(property.name) + ": "
                        + Self.string(property.type.text + (property.isOptional ? "?" : ""))
                }.joined(separator: ", ") + "}"
        }.joined(separator: ",\n")
        return text + "\n}\n}\n"
    }

    private func contextsText(tests: String) -> String {
        var text = """
            // How a payload like \(sampleName) becomes \(Self.article(root)) \(root) (contexts/models.mappings): `mappings map
            // --context '$\(root)' PAYLOAD`. An entry is "property": "payload key" (a short entry, required)
            // or an object of options (a long one): "@optional", "@dateFormat", and "@object" for a nested
            // model, mapped by its own context below. A computed value: "@lua", or a function of
            // scripts/Transformers.lua ("@transformClass": "Transformers", "@transformSelector": "upper").
            // "@tests" holds records of the sample and what they map to: `mappings test` runs them.
            {
                "@import": "models.mappings",

            """
        text += models.map { model in
            var members = ["\"@class\": \(Self.string(model.name))"]
            if model.name == root, let identity { members.append("\"@identity\": \(Self.string(identity))") }
            members += model.properties.map { Self.string($0.name) + ": " + entry($0) }
            if model.name == root { members.append("\"@tests\": [\(tests)]") }
            return Self.string("$" + model.name) + ": {" + members.joined(separator: ",\n") + "}"
        }.joined(separator: ",\n")
        return text + "\n}\n"
    }

    /// A short entry when the property is required and plain, else a long one.
    private func entry(_ property: InferredProperty) -> String {
        let keyPath = Self.string((property.parents + [property.key]).map(Self.keyPath).joined(separator: "."))
        var options: [String] = []
        if property.isOptional { options.append("\"@optional\": true") }
        if let format = property.dateFormat { options.append("\"@dateFormat\": \(Self.string(format))") }
        if let model = property.type.model {
            options.append("\"@object\": {\"@mappings\": \(Self.string("$" + model))}")
        }
        guard !options.isEmpty else { return keyPath }
        return "{\"@keyPath\": \(keyPath), " + options.joined(separator: ", ") + "}"
    }

    /// A payload key as one component of a key path: `.` and `\` escaped, and a first `@`, `-`
    /// or digit, so that it reads as a key and never as a keyword or an index.
    static func keyPath(_ key: String) -> String {
        var path = ""
        for character in key {
            if character == "." || character == "\\" { path.append("\\") }
            path.append(character)
        }
        if let first = key.first, first == "@" || first == "-" || first.isASCII && first.isNumber {
            path = "\\" + path
        }
        return path
    }

    /// "an" before a vowel, "a" before anything else.
    static func article(_ word: String) -> String {
        word.first.map { "AEIOUaeiou".contains($0) } == true ? "an" : "a"
    }

    static func string(_ text: String) -> String {
        var out = ""
        JSONWriter.writeString(text, into: &out)
        return out
    }

    static func json(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        JSONWriter.write(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func formatted(_ text: String) -> String {
        MappingsFormatter.format(text) ?? text
    }

    static let script = """
        -- Transformers: functions an entry calls to compute a value that a key path and a type
        -- cannot give. An entry names one with
        --     "title": { "@keyPath": "title", "@transformClass": "Transformers", "@transformSelector": "upper" }
        -- (the class is this file's name, the selector the function's). docs/lua.md says the rest.
        --
        -- A function is called as f(value, userData): value is what the key path found (never nil: a
        -- missing value skips the transformer), userData the entry's "@transformUserData" or nil.
        -- It returns the new value, which is converted to the property's type; nil alone means "no
        -- value" (the entry's @optional and @defaultValue apply); json.null is a null; a table is an
        -- object or an array; `return nil, "message"` or error("message") refuses the value: an
        -- issue naming this file and line.

        local Transformers = {}

        -- "hello" → "HELLO"; anything but a string is refused.
        function Transformers.upper(value)
            if type(value) ~= "string" then
                return nil, "expected a string, got " .. json.type(value)
            end
            return string.upper(value)
        end

        return Transformers

        """
}
