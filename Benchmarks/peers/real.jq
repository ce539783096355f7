# The real-like shape's reshape in jq, gojq and jaq (Benchmarks/contexts/real.mappings, $RealStatus).
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
}
