-- The application a status was posted with: its `source` is an HTML link
-- (`<a href="http://twitter.com/download/iphone" rel="nofollow">Twitter for iPhone</a>`),
-- whose address is the key of the `apps` lookup table.
local Sources = {}

function Sources.app(source)
  local url = string.match(source, 'href="([^"]*)"')
  if url == nil then return nil, "no link in the source: " .. source end
  local row = tables.apps[url]
  if row == nil then return nil end   -- an application the table does not know: no app
  return { name = row.name, platform = row.platform }
end

return Sources
