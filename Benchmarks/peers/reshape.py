"""The benchmarks' reshapes in Python (B1, B2), with the standard json module or orjson.

    python3 Benchmarks/peers/reshape.py [--orjson] [--client] [--shape tweet|small|wide|large|real|twitter] < in.ndjson > out.ndjson

Same output as the contexts of Benchmarks/contexts: tweet is $BenchTweet (with --client,
$BenchTweetWithClient), small is $SmallTweet (with --client, $SmallTweetWithHandle), wide is
$WideRecord, large is $LargeTweet (with --client, $LargeTweetScripted: B7), real is $RealStatus
(with --client, $RealStatusScripted: B7 on the real-like shape).
"""

import re
import sys
from datetime import datetime, timezone

API_DATE = "%a %b %d %H:%M:%S %z %Y"
CLIENT = re.compile(r">([^<]*)</a>")


def date(text):
    return datetime.strptime(text, API_DATE).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def user_out(user, date):
    """The output user; `date` reads its `created_at`."""
    return {
        "id": int(user["id_str"]),
        "name": user["name"],
        "screenName": user["screen_name"],
        "url": user.get("url"),
        "followers": int(user["followers_count"]),
        "verified": user.get("verified", False),
        "joined": date(user["created_at"]),
    }


def reshape(record, client):
    user = record["user"]
    entities = record["entities"]
    reply = record.get("in_reply_to_status_id_str")
    result = {
        "id": int(record["id_str"]),
        "text": record["text"],
        "createdAt": date(record["created_at"]),
        "user": user_out(user, date),
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


def iso(text):
    """An ISO 8601 instant as the benchmark's output writes it (UTC, no fraction when zero)."""
    return datetime.fromisoformat(text).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def reshape_small(record, client):
    user = record["user"]
    reply = record.get("in_reply_to_status_id_str")
    result = {
        "id": int(record["id_str"]),
        "createdAt": iso(record["created_at"]),
        "text": record["text"],
        "user": user_out(user, iso),
        "tags": [tag["text"] for tag in record["hashtags"]],
        "retweets": int(record.get("retweet_count", 0)),
        "lang": record.get("lang"),
        "replyTo": int(reply) if reply is not None else None,
    }
    if client:
        result["handle"] = "@" + user["screen_name"]
    return result


def camel(key):
    head, tail = key.split("_")
    return head + tail


def reshape_wide(record, client):
    return {camel(key): record.get(key) for key in WIDE_KEYS}


WIDE_KEYS = [
    "%s_%02d" % (prefix, index) for prefix, count in (("label", 10), ("count", 10), ("ratio", 10), ("flag", 5), ("note", 5))
    for index in range(count)
]
def reshape_large(record, client):
    user = record["user"]
    retweet = record.get("retweeted_status")
    return {
        "id": int(record["id_str"]),
        "text": record["text"],
        "createdAt": date(record["created_at"]),
        "userId": int(user["id_str"]),
        "userName": user["screen_name"],
        "followers": int(user["followers_count"]),
        "verified": user.get("verified", False),
        "joined": date(user["created_at"]),
        "retweetOf": None if retweet is None else {
            "id": int(retweet["id_str"]),
            "text": retweet["text"],
            "createdAt": date(retweet["created_at"]),
            "author": retweet["user"]["screen_name"],
        },
        "tags": [tag["text"] for tag in record["entities"]["hashtags"]],
        "lang": record.get("lang"),
        "retweets": int(record["retweet_count"]),
        "favorites": int(record["favorite_count"]),
        **(scripted_large(record) if client else {}),
    }


def scripted_large(record):
    """The Lua-heavy shape's four computed values (B7, $LargeTweetScripted)."""
    user = record["user"]
    source = record["source"]
    match = CLIENT.search(source)
    summary = "%s (@%s), %s followers" % (user["name"], user["screen_name"], user["followers_count"])
    if user.get("verified") is True:
        summary += ", verified"
    return {
        "client": match.group(1) if match else source,
        # bytes.lower() lowers ASCII letters only, as Lua's string.lower does.
        "topics": list(dict.fromkeys(tag["text"].encode().lower().decode() for tag in record["entities"]["hashtags"])),
        "author": summary,
        "score": 2 * int(record["retweet_count"]) + int(record["favorite_count"]) + int(user["followers_count"]) // 1000,
    }


def reshape_real(record, client):
    user = record["user"]
    return {
        "id": int(record["id_str"]),
        "text": record["text"],
        "createdAt": date(record["created_at"]),
        "userId": int(user["id_str"]),
        "userName": user["screen_name"],
        "followers": user["followers_count"],
        "tags": [tag["text"] for tag in record["entities"]["hashtags"]],
        "lang": record.get("lang"),
        **(scripted_large(record) if client else {}),
    }


RESHAPES = {"tweet": reshape, "small": reshape_small, "wide": reshape_wide, "large": reshape_large, "real": reshape_real, "twitter": reshape_real}


def main():
    client = "--client" in sys.argv
    shape = sys.argv[sys.argv.index("--shape") + 1] if "--shape" in sys.argv else "tweet"
    reshape = RESHAPES[shape]
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
