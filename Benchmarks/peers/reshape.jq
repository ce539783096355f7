# The benchmark's reshape in jq (B1; with --arg client yes, B2's client name too).
# Same output as the context $BenchTweet of Benchmarks/contexts/bench.mappings.
def date: strptime("%a %b %d %H:%M:%S %z %Y") | mktime | todate;
def int: if type == "string" then tonumber else . end;
{
  id: (.id_str | tonumber),
  text: .text,
  createdAt: (.created_at | date),
  user: (.user | {
    id: (.id_str | tonumber),
    name: .name,
    screenName: .screen_name,
    url: .url,
    followers: (.followers_count | int),
    verified: (if .verified == null then false else .verified end),
    joined: (.created_at | date)
  }),
  tags: [.entities.hashtags[].text],
  links: [.entities.urls[] | {url: .url, expanded: .expanded_url}],
  mentions: [.entities.user_mentions[].screen_name],
  retweets: ((.retweet_count // 0) | int),
  favorites: ((.favorite_count // 0) | int),
  lang: .lang,
  replyTo: (.in_reply_to_status_id_str | if . == null then null else tonumber end)
}
+ (if $client == "yes" then {client: (.source | if . == null then null else (capture(">(?<name>[^<]*)</a>").name // .) end)} else {} end)
