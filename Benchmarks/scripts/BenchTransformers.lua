-- The benchmark's Lua transformer (B2): the client's name from the "source" HTML anchor,
-- `<a href="…" rel="nofollow">Twitter for iPhone</a>` → "Twitter for iPhone".
local BenchTransformers = {}

function BenchTransformers.clientName(source)
    if type(source) ~= "string" then
        return nil, "expected a string, got " .. json.type(source)
    end
    return source:match(">([^<]*)</a>") or source
end

return BenchTransformers
