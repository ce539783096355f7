# The large shape's reshape in jq, gojq and jaq (Benchmarks/contexts/large.mappings, $LargeTweet;
# with --arg client yes, $LargeTweetScripted's four computed values too: B7).
def date: strptime("%a %b %d %H:%M:%S %z %Y") | mktime | todate;
def int: if type == "string" then tonumber else . end;
{
  id: (.id_str | tonumber),
  text: .text,
  createdAt: (.created_at | date),
  userId: (.user.id_str | tonumber),
  userName: .user.screen_name,
  followers: (.user.followers_count | int),
  verified: (if .user.verified == null then false else .user.verified end),
  joined: (.user.created_at | date),
  retweetOf: (.retweeted_status | if . == null then null else {
    id: (.id_str | tonumber),
    text: .text,
    createdAt: (.created_at | date),
    author: .user.screen_name
  } end),
  tags: [.entities.hashtags[].text],
  lang: .lang,
  retweets: (.retweet_count | int),
  favorites: (.favorite_count | int)
} + (if $client == "yes" then {
  client: (.source | capture(">(?<name>[^<]*)</a>").name // .),
  topics: (reduce (.entities.hashtags[].text | ascii_downcase) as $topic ([]; if any(.[]; . == $topic) then . else . + [$topic] end)),
  author: ("\(.user.name) (@\(.user.screen_name)), \(.user.followers_count) followers" + (if .user.verified == true then ", verified" else "" end)),
  score: (2 * (.retweet_count | int) + (.favorite_count | int) + ((.user.followers_count | int) / 1000 | floor))
} else {} end)
