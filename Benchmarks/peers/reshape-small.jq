# The small shape's reshape in jq, gojq and jaq (with --arg client yes, the Lua shape's handle).
# Same output as the context $SmallTweet of Benchmarks/contexts/small.mappings.
def int: if type == "string" then tonumber else . end;
{
  id: (.id_str | tonumber),
  createdAt: (.created_at | fromdate | todate),
  text: .text,
  user: (.user | {
    id: (.id_str | tonumber),
    name: .name,
    screenName: .screen_name,
    url: .url,
    followers: (.followers_count | int),
    verified: (if .verified == null then false else .verified end),
    joined: (.created_at | fromdate | todate)
  }),
  tags: [.hashtags[].text],
  retweets: ((.retweet_count // 0) | int),
  lang: .lang,
  replyTo: (.in_reply_to_status_id_str | if . == null then null else tonumber end)
}
+ (if $client == "yes" then {handle: ("@" + .user.screen_name)} else {} end)
