-- The benchmark's Lua transformers. B2: the client's name from the "source" HTML anchor,
-- `<a href="…" rel="nofollow">Twitter for iPhone</a>` → "Twitter for iPhone".
local BenchTransformers = {}

function BenchTransformers.clientName(source)
    if type(source) ~= "string" then
        return nil, "expected a string, got " .. json.type(source)
    end
    return source:match(">([^<]*)</a>") or source
end

-- The Lua shape's transformer: a screen name as a handle, "No_Other" → "@No_Other".
function BenchTransformers.handle(name)
    if type(name) ~= "string" then
        return nil, "expected a string, got " .. json.type(name)
    end
    return "@" .. name
end

return BenchTransformers
