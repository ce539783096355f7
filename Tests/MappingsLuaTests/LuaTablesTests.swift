import Foundation
import Mappings
import MappingsLua
import Testing

/// The sandbox's `tables` library: the lookup tables of `@tables`, read-only, in both isolations.
@Suite("Lua: the tables library", .serialized)
struct LuaTablesTests {
    static let script = """
        local M = {}
        function M.name(code)
          local row = tables.countries[code]
          if row == nil then return "none" end
          return row.name .. "/" .. tostring(row.population) .. "/" .. #tables.countries
        end
        function M.rate(pair) return tables.rates[pair] and tables.rates[pair].rate end
        function M.find(name) local row = tables.countries:find{ name = name }; return row and row.code end
        function M.get(code) return tables.countries:get(code).name end
        function M.hidden(code)
          return tostring(getmetatable(tables)) .. tostring(getmetatable(tables.countries)) .. tostring(getmetatable(tables.countries[code]))
        end
        function M.writeRow(code) tables.countries[code].name = "changed"; return "wrote" end
        function M.growTable(code) tables.countries.ZZ = { name = "grown" }; return "grew" end
        function M.replaceTable(code) tables.countries = {}; return "replaced" end
        function M.rawsetTables(code) rawset(tables, "countries", {}); return "raw" end
        function M.writeNested(code) tables.tagged[code].tags[1] = "changed"; return "wrote" end
        function M.nested(code) local tags = tables.tagged[code].tags; return tags[1] .. "," .. #tags end
        function M.pairsRow(code)
          local parts = {}
          for column, cell in pairs(tables.countries[code]) do parts[#parts + 1] = column .. "=" .. tostring(cell) end
          table.sort(parts)
          return table.concat(parts, ",")
        end
        function M.pairsNested(code)
          local parts = {}
          for key, value in pairs(tables.tagged[code]) do parts[#parts + 1] = key .. ":" .. type(value) end
          for index, tag in pairs(tables.tagged[code].tags) do parts[#parts + 1] = index .. "=" .. tag end
          table.sort(parts)
          return table.concat(parts, ",")
        end
        function M.pairsState(code) local _, state = pairs(tables.countries[code]); state.name = "changed"; return "wrote" end
        function M.rawsetRow(code) rawset(tables.countries[code], "name", "changed"); return "raw" end
        function M.insertNested(code) table.insert(tables.tagged[code].tags, "z"); return "grew" end
        function M.rawsetNested(code) rawset(tables.tagged[code].tags, 3, "z"); return "raw" end
        function M.metatableNested(code) setmetatable(tables.tagged[code].tags, {}); return "set" end
        function M.attempts(code)
          local refused = {}
          for _, name in ipairs({ "writeRow", "rawsetRow", "pairsState", "growTable", "rawsetTables" }) do
            refused[#refused + 1] = tostring(not pcall(M[name], code))
          end
          for _, name in ipairs({ "writeNested", "insertNested", "rawsetNested", "metatableNested" }) do
            refused[#refused + 1] = tostring(not pcall(M[name], "a"))
          end
          return table.concat(refused, ",") .. "/" .. M.pairsRow(code) .. "/" .. M.nested("a") .. "/"
            .. tostring(tables.countries.ZZ)
        end
        function M.lookups(code)
          local n = 0
          for i = 1, 200000 do if tables.countries[code] then n = n + 1 end end
          return n
        end
        function M.misses(code)
          local n, key = 0, code .. "?"
          for i = 1, 200000 do if not tables.countries[key] then n = n + 1 end end
          return n
        end
        function M.indexes(code)
          local plain, n = { [code] = { name = "x" } }, 0
          for i = 1, 200000 do if plain[code] then n = n + 1 end end
          return n
        end
        function M.plainMisses(code)
          local plain, n, key = { [code] = { name = "x" } }, 0, code .. "?"
          for i = 1, 200000 do if not plain[key] then n = n + 1 end end
          return n
        end
        function M.spellings(_)
          local ids = tables.ids
          return table.concat({ ids[7].name, ids["7"].name, ids[7.0].name, ids["007"].name, ids[true].name,
            ids["true"].name, ids:get("get").name, type(ids.get), tostring(ids[8]), ids[1.5].name,
            tostring(ids[false]), type(ids), type(ids[7]) }, ",")
        end
        function M.row(code) return tables.countries[code] end
        function M.handle(_) return tables.countries end
        function M.copy(code)
          local copy = json.copy(tables.countries[code])
          copy.name = "copied"
          return copy.code .. "/" .. copy.name .. "/" .. tables.countries[code].name
        end
        return M
        """

    /// The catalog of a context `$X` whose property `p` calls `T.<function>` on `v`, over
    /// tables in memory, with `tests` as its `@tests`; `body` runs while the scripts are there.
    static func withCatalog<R>(
        _ function: String, isolation: LuaIsolation, tests: String = "[]", _ body: (Catalog) throws -> R
    ) throws -> R {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lua-tables-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(script.utf8).write(to: directory.appendingPathComponent("T.lua"))
        let scripts = LuaScripts(
            directory: directory.path,
            limits: LuaLimits(memory: 16 << 20, instructions: 2_000_000, timeout: .seconds(5)), isolation: isolation)
        var registry = TransformerRegistry()
        registry.add(scripts)
        let mappings = """
            { "@tables": { "countries": { "file": "countries.csv", "key": "code" },
                           "rates": { "file": "rates.csv", "key": ["from", "to"] },
                           "tagged": { "file": "tagged.jsonl", "key": "id" },
                           "ids": { "file": "ids.csv", "key": "id", "columns": { "id": "String" } } },
              "$X": { "p": { "@keyPath": "v", "@transformClass": "T", "@transformSelector": "\(function)" },
                      "@tests": \(tests) } }
            """
        let catalog = try Catalog.load(
            ["x.mappings"],
            from: .memory([
                "x.mappings": mappings,
                "countries.csv": "code,name,population\nFR,France,67000000\nDE,Germany,83000000\n",
                "rates.csv": "from,to,rate\nEUR,USD,1.5\n",
                "tagged.jsonl": #"{"id": "a", "tags": ["x", "y"]}"# + "\n",
                "ids.csv": "id,name\n7,seven\n007,zeros\ntrue,yes\nget,shadowed\n1.5,one and a half\n",
            ]), transformers: registry)
        return try body(catalog)
    }

    /// Maps `{"v": value}` by `$X`, whose property `p` calls `T.<function>`.
    static func map(
        _ function: String, _ value: String, isolation: LuaIsolation
    ) throws -> (output: String, issues: [String]) {
        try withCatalog(function, isolation: isolation) { catalog in
            let result = try Mapper(catalog: catalog).object(
                from: try JSONParser.parse(#"{"v": \#(value)}"#), context: "$X")
            return (JSONWriter.string(result.value), result.issues.map(\.message))
        }
    }

    @Test("a test's fixture tables are what a script reads in tables while the test runs", arguments: isolations)
    func fixtures(isolation: LuaIsolation) throws {
        let tests = """
            [ { "tables": { "countries": [ { "code": "FR", "name": "Fixture France", "population": 1 } ] },
                "input": { "v": "FR" }, "output": { "p": "Fixture France/1/1" } },
              { "input": { "v": "FR" }, "output": { "p": "France/67000000/2" } },
              { "tables": { "countries": [ { "code": "DE", "name": "Fixture Germany", "population": 2 } ] },
                "input": { "v": "FR" }, "output": { "p": "none" } } ]
            """
        let results = try Self.withCatalog("name", isolation: isolation, tests: tests) { catalog in
            ContextTestRunner.run(catalog).map { ($0.passed ? "passed" : "failed") + $0.failures.joined() }
        }
        #expect(results == ["passed", "passed", "passed"])
        // Outside the tests, the table the file holds.
        #expect(try Self.map("name", #""FR""#, isolation: isolation).output == #"{"p":"France/67000000/2"}"#)
    }

    static let isolations: [LuaIsolation] = [.inProcess, .process]

    @Test("a row by its key, nil for none, a composite key, find, get and the row count", arguments: isolations)
    func reads(isolation: LuaIsolation) throws {
        #expect(try Self.map("name", #""DE""#, isolation: isolation).output == #"{"p":"Germany/83000000/2"}"#)
        #expect(try Self.map("name", #""ZZ""#, isolation: isolation).output == #"{"p":"none"}"#)
        #expect(try Self.map("rate", #"["EUR", "USD"]"#, isolation: isolation).output == #"{"p":1.5}"#)
        #expect(try Self.map("find", #""France""#, isolation: isolation).output == #"{"p":"FR"}"#)
        #expect(try Self.map("get", #""FR""#, isolation: isolation).output == #"{"p":"France"}"#)
        #expect(try Self.map("nested", #""a""#, isolation: isolation).output == #"{"p":"x,2"}"#)
        #expect(try Self.map("hidden", #""FR""#, isolation: isolation).output == #"{"p":"falsefalsefalse"}"#)
    }

    @Test("pairs iterates a row's columns that have a cell, and a nested value, read-only", arguments: isolations)
    func iterates(isolation: LuaIsolation) throws {
        #expect(
            try Self.map("pairsRow", #""DE""#, isolation: isolation).output
                == #"{"p":"code=DE,name=Germany,population=83000000"}"#)
        #expect(
            try Self.map("pairsNested", #""a""#, isolation: isolation).output
                == #"{"p":"1=x,2=y,id:string,tags:table"}"#)
    }

    @Test(
        "a hostile script cannot write to a row, grow or replace a table, or change a nested value",
        arguments: [
            ("writeRow", "attempt to modify a lookup table (tables are read-only)"),
            ("growTable", "attempt to modify a lookup table (tables are read-only)"),
            ("replaceTable", "attempt to modify a lookup table (tables are read-only)"),
            ("rawsetTables", "attempt to modify a read-only table"),
            ("writeNested", "attempt to modify a lookup table (tables are read-only)"),
            ("pairsState", "attempt to modify a lookup table (tables are read-only)"),
            ("rawsetRow", "attempt to modify a read-only table"),
            ("insertNested", "attempt to modify a lookup table (tables are read-only)"),
            ("rawsetNested", "attempt to modify a read-only table"),
            ("metatableNested", "cannot change a protected metatable"),
        ])
    func hostile(function: String, message: String) throws {
        for isolation in Self.isolations {
            let nested = function.hasSuffix("Nested")
            let (output, issues) = try Self.map(function, nested ? #""a""# : #""FR""#, isolation: isolation)
            #expect(output == "{}")
            #expect(issues.count == 1)
            #expect(issues.first?.contains(message) == true, "\(issues)")
            #expect(issues.first?.contains("T.lua:") == true, "the script's line: \(issues)")
        }
    }

    @Test(
        "every attempt, caught with pcall, is refused and leaves the table as its file holds it", arguments: isolations)
    func attempts(isolation: LuaIsolation) throws {
        #expect(
            try Self.map("attempts", #""FR""#, isolation: isolation).output
                == #"{"p":"true,true,true,true,true,true,true,true,true/code=FR,name=France,population=67000000/x,2/nil"}"#
        )
    }

    @Test(
        "a row the VM finds costs what indexing a Lua table costs; one the library looks for counts its steps",
        arguments: isolations)
    func budget(isolation: LuaIsolation) throws {
        #expect(try Self.map("indexes", #""FR""#, isolation: isolation).output == #"{"p":200000}"#)
        #expect(try Self.map("lookups", #""FR""#, isolation: isolation).output == #"{"p":200000}"#)
        #expect(try Self.map("plainMisses", #""FR""#, isolation: isolation).output == #"{"p":200000}"#)
        let (output, issues) = try Self.map("misses", #""FR""#, isolation: isolation)
        #expect(output == "{}")
        #expect(issues.first?.contains("ran out of its instruction budget") == true, "\(issues)")
    }

    @Test(
        "a key by its other spellings: an integer, a float, a boolean; a key spelled as a method by get",
        arguments: isolations)
    func spellings(isolation: LuaIsolation) throws {
        #expect(
            try Self.map("spellings", "0", isolation: isolation).output
                == #"{"p":"seven,seven,seven,zeros,yes,yes,shadowed,function,nil,one and a half,nil,table,table"}"#)
    }

    @Test("a row returned is its cells; json.copy copies them; a table returned is refused", arguments: isolations)
    func rowsCrossBack(isolation: LuaIsolation) throws {
        #expect(
            try Self.map("row", #""DE""#, isolation: isolation).output
                == #"{"p":{"code":"DE","name":"Germany","population":83000000}}"#)
        #expect(try Self.map("copy", #""FR""#, isolation: isolation).output == #"{"p":"FR/copied/France"}"#)
        let (output, issues) = try Self.map("handle", "0", isolation: isolation)
        #expect(output == "{}")
        #expect(
            issues.first?.contains("a lookup table is not a JSON value (return a row or its cells)") == true,
            "\(issues)")
    }
}
