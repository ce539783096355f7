import Testing

/// The doc-test runner's own parts: reading `console` blocks and matching through masks.
@Suite("Reading and matching the documentation's console blocks")
struct DocBlockTests {
    @Test("a console block is split into commands, their outputs, continuations and exit statuses")
    func parse() throws {
        let markdown = """
            Text.

            ```sh
            $ not run
            ```

            ````markdown
            ```console
            $ not run either: inside a longer fence
            ```
            ````

              ```console
              $ mappings check   # exit 2
              error: …
              $ echo '{}' |
                mappings map --context '$A'
              {}
              $ false
              $ echo $?
              1
              ```
            """
        let blocks = DocBlock.parse(markdown, file: "x.md")
        let block = try #require(blocks.count == 1 ? blocks.first : nil)
        #expect(block.description == "x.md:13")
        #expect(block.commands.map(\.line) == [14, 16, 19, 20])
        #expect(block.commands.map(\.status) == [2, 0, 0, 0])
        #expect(block.commands.map(\.statusShownByNext) == [false, false, true, false])
        #expect(block.commands[1].text == "echo '{}' |\n  mappings map --context '$A'")
        #expect(block.commands.map(\.output) == [["error: …"], ["{}"], [], ["1"]])
    }

    @Test(
        "… matches any run of characters on a line; a line of … alone matches any lines",
        arguments: [
            (["mappings … (Lua 5.4.…)"], ["mappings 0.1.0 (Lua 5.4.6)"], true),
            (["mappings … (Lua 5.4.…)"], ["mappings 0.1.0 (Lua 5.3.6)"], false),
            (["a", "…", "z"], ["a", "z"], true),
            (["a", "…", "z"], ["a", "b", "c", "z"], true),
            (["a", "…", "z"], ["a", "b"], false),
            (["took … s"], ["took 0.12 s", "more"], false),
            (["exact"], ["exact "], false),
        ])
    func masks(expected: [String], actual: [String], matches: Bool) {
        #expect(ExpectedOutput(lines: expected).matches(actual) == matches)
    }

    @Test("the diff marks lines the block shows that did not come, and lines printed instead")
    func diff() {
        let expected = ExpectedOutput(lines: ["ok: …", "b", "c"])
        #expect(expected.diff(against: ["ok: 4 contexts", "B", "c"]) == "  ok: 4 contexts\n- b\n+ B\n  c")
    }
}
