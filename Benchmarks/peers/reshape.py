"""The benchmark's reshape in Python (B1, B2), with the standard json module or orjson.

    python3 Benchmarks/peers/reshape.py [--orjson] [--client] < tweets.ndjson > out.ndjson

Same output as the context $BenchTweet (with --client, $BenchTweetWithClient) of
Benchmarks/contexts/bench.mappings.
"""

import re
import sys
from datetime import datetime, timezone

API_DATE = "%a %b %d %H:%M:%S %z %Y"
CLIENT = re.compile(r">([^<]*)</a>")


def date(text):
    return datetime.strptime(text, API_DATE).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def reshape(record, client):
    user = record["user"]
    entities = record["entities"]
    reply = record.get("in_reply_to_status_id_str")
    result = {
        "id": int(record["id_str"]),
        "text": record["text"],
        "createdAt": date(record["created_at"]),
        "user": {
            "id": int(user["id_str"]),
            "name": user["name"],
            "screenName": user["screen_name"],
            "url": user.get("url"),
            "followers": int(user["followers_count"]),
            "verified": user.get("verified", False),
            "joined": date(user["created_at"]),
        },
        "tags": [tag["text"] for tag in entities["hashtags"]],
        "links": [{"url": link["url"], "expanded": link["expanded_url"]} for link in entities["urls"]],
        "mentions": [mention["screen_name"] for mention in entities["user_mentions"]],
        "retweets": int(record.get("retweet_count", 0)),
        "favorites": int(record.get("favorite_count", 0)),
        "lang": record.get("lang"),
        "replyTo": int(reply) if reply is not None else None,
    }
    if client:
        source = record.get("source")
        match = CLIENT.search(source) if source is not None else None
        result["client"] = match.group(1) if match else source
    return result


def main():
    client = "--client" in sys.argv
    out = sys.stdout.buffer
    if "--orjson" in sys.argv:
        import orjson

        for line in sys.stdin.buffer:
            out.write(orjson.dumps(reshape(orjson.loads(line), client)) + b"\n")
    else:
        import json

        for line in sys.stdin.buffer:
            text = json.dumps(reshape(json.loads(line), client), ensure_ascii=False, separators=(",", ":"))
            out.write(text.encode() + b"\n")


if __name__ == "__main__":
    main()
