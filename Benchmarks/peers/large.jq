# The large shape's reshape in jq, gojq and jaq (Benchmarks/contexts/large.mappings, $LargeTweet).
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
}
