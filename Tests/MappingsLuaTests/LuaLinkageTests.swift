import MappingsLua
import Testing

@Suite("Lua linkage")
struct LuaLinkageTests {
    @Test("the system Lua 5.4 is linked and runs a text chunk")
    func trivialChunk() throws {
        #expect(try LuaRuntime.evaluate("return 6 * 7") == "42")
        #expect(try LuaRuntime.evaluate("return 'map' .. 'pings'") == "mappings")
        #expect(try LuaRuntime.evaluate("return nil") == nil)
        #expect(LuaRuntime.release.hasPrefix("5.4."))
    }

    @Test("a Lua error comes back as a Swift error naming the chunk and line, not a crash")
    func errors() {
        #expect(throws: LuaError.self) { try LuaRuntime.evaluate("return 1 +", name: "broken.lua") }
        do {
            _ = try LuaRuntime.evaluate("local x = nil\nreturn x.field", name: "t.lua")
            Issue.record("expected an error")
        } catch {
            #expect(error.message.hasPrefix("t.lua:2:"))
        }
    }
}
