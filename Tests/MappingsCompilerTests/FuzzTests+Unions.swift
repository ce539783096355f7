import Mappings
import MappingsTestSupport
import Testing

extension FuzzTests {
    static let unionSeed = """
        { "@models": { "Circle": { "r": "Double" }, "Rect": { "w": "Double", "h": "Double" }, "Other": { "t": "String?" },
                       "Drawing": { "shapes": "[Circle | Rect | Other]", "main": "(Circle | Rect)?",
                                    "named": "[String: Circle | Rect]" } },
          "$Circle": { "@class": "Circle", "r": "r" },
          "$Rect": { "@class": "Rect", "w": "w", "h": "h" },
          "$Drawing": { "@class": "Drawing",
            "shapes": { "@keyPath": "shapes", "@object": { "@discriminator": "type",
                        "@cases": { "circle": "$Circle", "rect": "$Rect" },
                        "@otherwise": { "@class": "Other", "t": { "@keyPath": "type", "@optional": true } } } },
            "main": { "@keyPath": "main", "@optional": true,
                      "@object": { "@discriminator": "meta.kind", "@cases": { "1": "$Circle", "true": "$Rect" } } },
            "named": { "@keyPath": "named", "@optional": true,
                       "@object": { "@discriminator": "type", "@cases": { "c": "$Circle", "r": "$Rect" } } } },
          "$Shape": { "@class": "Circle", "@when type == circle": { "r": "radius" } }
        }
        """

    static let unionFragments = [
        "\"@discriminator\": ", "\"@cases\": {", "\"@otherwise\": ", "\"Circle | Rect\"", "\"(Circle | Rect?)\"",
        "\"[Circle | Circle]\"", "\"x\": \"$Nope\",", "\"$Drawing\"", "\"@first\"", "|", "(", "{}", "[]",
    ]

    @Test("thousands of mutated unions: no crash, every failure a located diagnostic")
    func unionMutations() {
        let failures = loadMutations(
            of: Self.unionSeed, inserting: Self.unionFragments, randomSeed: 0xA_2026, file: "u.mappings")
        #expect(failures > 500, "the mutations should break most files")
    }

    @Test("the union seed loads, and its selector over an unset trait is a warning")
    func unionSeedLoads() throws {
        let catalog = try Catalog.load(["u.mappings"], from: .memory(["u.mappings": Self.unionSeed]))
        #expect(
            catalog.warnings.map(\.message) == [
                #""type" is a trait, not a payload key: no trait "type" is set, so "@when type == circle" never holds"#
            ])
    }
}
