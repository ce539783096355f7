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

-- The Lua-heavy shape's transformers (B7, $LargeTweetScripted). Hashtags, lower-cased (ASCII)
-- and deduplicated in their order; an empty list stays a list (the property is [String]).
function BenchTransformers.topics(hashtags)
    local seen, topics = {}, {}
    for _, hashtag in ipairs(hashtags) do
        local topic = string.lower(hashtag.text)
        if not seen[topic] then
            seen[topic] = true
            topics[#topics + 1] = topic
        end
    end
    return topics
end

-- A user object of 40 fields, summed up from four of them: "Ann Lee (@Ann_Lee), 120 followers".
function BenchTransformers.userSummary(user)
    local summary = user.name .. " (@" .. user.screen_name .. "), " .. tostring(user.followers_count) .. " followers"
    if user.verified then
        summary = summary .. ", verified"
    end
    return summary
end

-- The whole record ("@self"), scored from three of its numbers (counts may come as strings).
function BenchTransformers.score(tweet)
    local retweets = math.tointeger(tonumber(tweet.retweet_count)) or 0
    local favorites = math.tointeger(tonumber(tweet.favorite_count)) or 0
    local followers = math.tointeger(tonumber(tweet.user.followers_count)) or 0
    return 2 * retweets + favorites + followers // 1000
end

return BenchTransformers
