# The real-like shape's reshape in jq, gojq and jaq (Benchmarks/contexts/real.mappings, $RealStatus;
# with --arg client yes, $RealStatusScripted's four computed values too: B7).
def date: strptime("%a %b %d %H:%M:%S %z %Y") | mktime | todate;
{
  id: (.id_str | tonumber),
  text: .text,
  createdAt: (.created_at | date),
  userId: (.user.id_str | tonumber),
  userName: .user.screen_name,
  followers: .user.followers_count,
  tags: [.entities.hashtags[].text],
  lang: .lang
} + (if $client == "yes" then {
  client: (.source | capture(">(?<name>[^<]*)</a>").name // .),
  topics: (reduce (.entities.hashtags[].text | ascii_downcase) as $topic ([]; if any(.[]; . == $topic) then . else . + [$topic] end)),
  author: ("\(.user.name) (@\(.user.screen_name)), \(.user.followers_count) followers" + (if .user.verified == true then ", verified" else "" end)),
  score: (2 * .retweet_count + .favorite_count + (.user.followers_count / 1000 | floor))
} else {} end)
