import Mappings
import Testing

@Suite("conversion to enums")
struct EnumConversionTests {
    private let status = Enumeration(name: "Status", values: ["active", "suspended", "deleted"])
    private let converter = Converter(models: [:])

    private func convert(_ value: JSONValue, _ type: TypeReference) -> (Value, [ConversionFailure]) {
        var failures: [ConversionFailure] = []
        let result = converter.convert(value, to: type, failures: &failures)
        return (result, failures)
    }

    @Test("an allowed value converts to its string; the JSON output is the string")
    func allowed() {
        let (value, failures) = convert("suspended", .enumeration(status))
        #expect(value == .string("suspended") && failures.isEmpty)
        #expect(JSONWriter.string(value) == #""suspended""#)
        let numbered = Enumeration(name: "Level", values: ["1", "2", "true"])
        #expect(convert(1, .enumeration(numbered)).0 == .string("1"))
        #expect(convert(true, .enumeration(numbered)).0 == .string("true"))
    }

    @Test("a value outside the enum fails, listing the allowed values, with a suggestion when one is close")
    func notAllowed() {
        #expect(
            convert("actve", .enumeration(status)).1.map(\.message) == [
                #"expected Status, found string "actve": allowed values are "active", "suspended", "deleted"; did you mean "active"?"#
            ])
        #expect(
            convert(3, .enumeration(status)).1.map(\.message) == [
                #"expected Status, found number 3: allowed values are "active", "suspended", "deleted""#
            ])
        #expect(convert(["a": 1], .enumeration(status)).1.map(\.message) == ["expected Status, found object of 1 key"])
    }

    @Test("optional, array and dictionary enums convert element by element, failing at the element")
    func collections() {
        #expect(convert(.null, .optional(.enumeration(status))) == (.null, []))
        let (array, failures) = convert(["active", "gone", "deleted"], .array(.enumeration(status)))
        #expect(array == .array([.string("active"), .null, .string("deleted")]))
        #expect(failures.map(\.relativePath) == ["[1]"])
        let (dictionary, none) = convert(["a": "deleted"], .dictionary(.enumeration(status)))
        #expect(dictionary == .dictionary(ValueDictionary([("a", .string("deleted"))])) && none.isEmpty)
    }

    @Test("a Swift enum with String raw values gives the enum of its cases, named after it")
    func swiftEnum() {
        enum Mood: String, CaseIterable { case up, down }
        #expect(Enumeration(Mood.self) == Enumeration(name: "Mood", values: ["up", "down"]))
        #expect(TypeReference.enumeration(Enumeration(Mood.self)).description == "Mood")
    }
}
