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

-- [{"name": "bug", …}, …] → {"bug", …}: labels is a read-only view of the JSON array.
function Transformers.names(labels)
    if json.type(labels) ~= "array" then
        return nil, "expected an array of labels, got " .. json.type(labels)
    end
    local names = {}
    for index = 1, #labels do
        names[#names + 1] = labels[index].name
    end
    return names
end

return Transformers
