"""The benchmarks' reshapes in Python with msgspec's typed Structs: decode into typed input
Structs (msgspec validates and converts while it parses), build the output Structs, encode.

    python3 Benchmarks/peers/reshape_msgspec.py [--client] [--shape tweet|small|wide|large|real|twitter] < in.ndjson > out.ndjson
    python3 Benchmarks/peers/reshape_msgspec.py --enrich --shape real|twitter < in.ndjson > out.ndjson

Same output as Benchmarks/peers/reshape.py (and the contexts of Benchmarks/contexts).
"""

import csv
import os
import re
import sys
from datetime import datetime, timezone
from typing import Optional, Union

import msgspec

API_DATE = "%a %b %d %H:%M:%S %z %Y"
CLIENT = re.compile(r">([^<]*)</a>")


def api_date(text):
    return datetime.strptime(text, API_DATE).astimezone(timezone.utc)


# tweet ------------------------------------------------------------------------------------------

def user_in(name, date):
    """The input user Struct, its `created_at` decoded as `date` (str, or datetime for ISO 8601)."""
    return msgspec.defstruct(name, [
        ("id_str", str), ("name", str), ("screen_name", str), ("followers_count", Union[int, str]),
        ("created_at", date), ("url", Optional[str], None), ("verified", Optional[bool], None)])


TweetUserIn = user_in("TweetUserIn", str)


class Hashtag(msgspec.Struct):
    text: str


class LinkIn(msgspec.Struct):
    url: str
    expanded_url: str


class Mention(msgspec.Struct):
    screen_name: str


class Entities(msgspec.Struct):
    hashtags: list[Hashtag]
    urls: list[LinkIn]
    user_mentions: list[Mention]


class TweetIn(msgspec.Struct):
    id_str: str
    text: str
    created_at: str
    user: TweetUserIn
    entities: Entities
    retweet_count: Union[int, str] = 0
    favorite_count: Union[int, str] = 0
    lang: Optional[str] = None
    in_reply_to_status_id_str: Optional[str] = None


class TweetInWithClient(TweetIn):
    """With --client, `source` is read too (declared only then: the rest of the time msgspec skips it)."""
    source: Optional[str] = None


class UserOut(msgspec.Struct):
    id: int
    name: str
    screenName: str
    url: Optional[str]
    followers: int
    verified: bool
    joined: datetime


def user_out(user, joined):
    return UserOut(
        int(user.id_str), user.name, user.screen_name, user.url, int(user.followers_count), bool(user.verified), joined)


class LinkOut(msgspec.Struct):
    url: str
    expanded: str


class TweetOut(msgspec.Struct):
    id: int
    text: str
    createdAt: datetime
    user: UserOut
    tags: list[str]
    links: list[LinkOut]
    mentions: list[str]
    retweets: int
    favorites: int
    lang: Optional[str]
    replyTo: Optional[int]


class TweetOutWithClient(TweetOut):
    client: Optional[str]


def tweet(record, client):
    user = record.user
    fields = dict(
        id=int(record.id_str), text=record.text, createdAt=api_date(record.created_at),
        user=user_out(user, api_date(user.created_at)),
        tags=[tag.text for tag in record.entities.hashtags],
        links=[LinkOut(link.url, link.expanded_url) for link in record.entities.urls],
        mentions=[mention.screen_name for mention in record.entities.user_mentions],
        retweets=int(record.retweet_count), favorites=int(record.favorite_count), lang=record.lang,
        replyTo=int(record.in_reply_to_status_id_str) if record.in_reply_to_status_id_str is not None else None)
    if not client:
        return TweetOut(**fields)
    match = CLIENT.search(record.source) if record.source is not None else None
    return TweetOutWithClient(**fields, client=match.group(1) if match else record.source)


# small ------------------------------------------------------------------------------------------

SmallUserIn = user_in("SmallUserIn", datetime)


class SmallIn(msgspec.Struct):
    id_str: str
    created_at: datetime
    text: str
    user: SmallUserIn
    hashtags: list[Hashtag]
    retweet_count: Union[int, str] = 0
    lang: Optional[str] = None
    in_reply_to_status_id_str: Optional[str] = None


class SmallOut(msgspec.Struct):
    id: int
    createdAt: datetime
    text: str
    user: UserOut
    tags: list[str]
    retweets: int
    lang: Optional[str]
    replyTo: Optional[int]


class SmallOutWithHandle(SmallOut):
    handle: str


def small(record, client):
    user = record.user
    fields = dict(
        id=int(record.id_str), createdAt=record.created_at, text=record.text,
        user=user_out(user, user.created_at),
        tags=[tag.text for tag in record.hashtags], retweets=int(record.retweet_count), lang=record.lang,
        replyTo=int(record.in_reply_to_status_id_str) if record.in_reply_to_status_id_str is not None else None)
    if not client:
        return SmallOut(**fields)
    return SmallOutWithHandle(**fields, handle="@" + user.screen_name)


# wide -------------------------------------------------------------------------------------------

WIDE = [("label", 10, str), ("count", 10, int), ("ratio", 10, float), ("flag", 5, bool), ("note", 5, Optional[str])]
WideIn = msgspec.defstruct(
    "WideIn", [("%s_%02d" % (prefix, i), kind) for prefix, count, kind in WIDE for i in range(count)])
WideOut = msgspec.defstruct(
    "WideOut", [("%s%02d" % (prefix, i), kind) for prefix, count, kind in WIDE for i in range(count)])


def wide(record, client):
    return WideOut(*msgspec.structs.astuple(record))


# large ------------------------------------------------------------------------------------------
# Only the fields read are declared: msgspec passes over the others without building them.

class LargeUserIn(msgspec.Struct):
    id_str: str
    screen_name: str
    followers_count: Union[int, str]
    created_at: str
    verified: Optional[bool] = None


class LargeUserInScripted(LargeUserIn):
    """The Lua-heavy shape's summary reads the user's name too."""
    name: str = ""


class LargeAuthorIn(msgspec.Struct):
    screen_name: str


class LargeRetweetIn(msgspec.Struct):
    id_str: str
    text: str
    created_at: str
    user: LargeAuthorIn


class LargeEntities(msgspec.Struct):
    hashtags: list[Hashtag]


class LargeIn(msgspec.Struct):
    id_str: str
    text: str
    created_at: str
    user: LargeUserIn
    entities: LargeEntities
    retweet_count: Union[int, str]
    favorite_count: Union[int, str]
    retweeted_status: Optional[LargeRetweetIn] = None
    lang: Optional[str] = None


class LargeInScripted(LargeIn):
    """The Lua-heavy shape (B7) reads `source` and the user's name too."""
    source: str = ""
    user: LargeUserInScripted


class LargeRetweetOut(msgspec.Struct):
    id: int
    text: str
    createdAt: datetime
    author: str


class LargeOut(msgspec.Struct):
    id: int
    text: str
    createdAt: datetime
    userId: int
    userName: str
    followers: int
    verified: bool
    joined: datetime
    retweetOf: Optional[LargeRetweetOut]
    tags: list[str]
    lang: Optional[str]
    retweets: int
    favorites: int


class LargeOutScripted(LargeOut):
    client: str
    topics: list[str]
    author: str
    score: int


def client_name(source):
    match = CLIENT.search(source)
    return match.group(1) if match else source


def topics(hashtags):
    # bytes.lower() lowers ASCII letters only, as Lua's string.lower does.
    return list(dict.fromkeys(hashtag.text.encode().lower().decode() for hashtag in hashtags))


def user_summary(user):
    summary = "%s (@%s), %s followers" % (user.name, user.screen_name, user.followers_count)
    return summary + ", verified" if user.verified is True else summary


def score(record):
    return 2 * int(record.retweet_count) + int(record.favorite_count) + int(record.user.followers_count) // 1000


def large(record, client):
    user = record.user
    retweet = record.retweeted_status
    fields = (
        int(record.id_str), record.text, api_date(record.created_at), int(user.id_str), user.screen_name,
        int(user.followers_count), bool(user.verified), api_date(user.created_at),
        None if retweet is None else LargeRetweetOut(
            int(retweet.id_str), retweet.text, api_date(retweet.created_at), retweet.user.screen_name),
        [tag.text for tag in record.entities.hashtags], record.lang, int(record.retweet_count),
        int(record.favorite_count))
    if not client:
        return LargeOut(*fields)
    # The Lua-heavy shape (B7): the four computed values as Python functions.
    return LargeOutScripted(
        *fields, client_name(record.source), topics(record.entities.hashtags), user_summary(user), score(record))


# real -------------------------------------------------------------------------------------------
# Only the 8 values read are declared: msgspec passes over the rest of each 5.5 KB status in C.

class RealUserIn(msgspec.Struct):
    id_str: str
    screen_name: str
    followers_count: int


class RealHashtag(msgspec.Struct):
    text: str


class RealEntities(msgspec.Struct):
    hashtags: list[RealHashtag]


class RealIn(msgspec.Struct):
    id_str: str
    text: str
    created_at: str
    user: RealUserIn
    entities: RealEntities
    lang: Optional[str] = None


class RealUserInScripted(RealUserIn):
    """B7 on the real-like shape: the summary reads the user's name and verified mark too."""
    name: str = ""
    verified: Optional[bool] = None


class RealInScripted(RealIn):
    """B7 on the real-like shape reads `source` and the two counts too."""
    source: str = ""
    retweet_count: int = 0
    favorite_count: int = 0
    user: RealUserInScripted


class RealOut(msgspec.Struct):
    id: int
    text: str
    createdAt: datetime
    userId: int
    userName: str
    followers: int
    tags: list[str]
    lang: Optional[str]


class RealOutScripted(RealOut):
    client: str
    topics: list[str]
    author: str
    score: int


def real(record, client):
    user = record.user
    fields = (
        int(record.id_str), record.text, api_date(record.created_at), int(user.id_str), user.screen_name,
        user.followers_count, [tag.text for tag in record.entities.hashtags], record.lang)
    if not client:
        return RealOut(*fields)
    # B7 on the real-like shape: the four computed values as Python functions.
    return RealOutScripted(
        *fields, client_name(record.source), topics(record.entities.hashtags), user_summary(user), score(record))


# B12: the real statuses enriched by two lookup tables, read from the same CSV files as
# Benchmarks/contexts/enriched.mappings into dicts once; the input declares `source` too.

TABLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "contexts", "tables")


def table(name, key, column):
    """The CSV file `name` as a dict from its `key` column to its `column` (an empty cell is None)."""
    with open(os.path.join(TABLES, name), newline="", encoding="utf-8") as rows:
        return {row[key]: row[column] or None for row in csv.DictReader(rows)}


class RealInEnriched(RealIn):
    source: str = ""


class RealOutEnriched(RealOut):
    language: Optional[str]
    platform: Optional[str]


def enriched():
    """The reshape of --enrich: the real one, and the two lookups by `dict.get`."""
    languages = table("languages.csv", "code", "name")
    platforms = table("apps.csv", "source", "platform")

    def reshape(record, _):
        user = record.user
        return RealOutEnriched(
            int(record.id_str), record.text, api_date(record.created_at), int(user.id_str), user.screen_name,
            user.followers_count, [tag.text for tag in record.entities.hashtags], record.lang,
            languages.get(record.lang), platforms.get(record.source))
    return reshape


# Each shape's input Struct, and the one with --client (the Lua shapes read a few fields more).
SHAPES = {"tweet": (TweetIn, TweetInWithClient, tweet), "small": (SmallIn, SmallIn, small),
          "wide": (WideIn, WideIn, wide), "large": (LargeIn, LargeInScripted, large), "real": (RealIn, RealInScripted, real)}
# The actual statuses (the twitter shape) are what the real-like shape imitates: the same Structs.
SHAPES["twitter"] = SHAPES["real"]


def main():
    client = "--client" in sys.argv
    shape = sys.argv[sys.argv.index("--shape") + 1] if "--shape" in sys.argv else "tweet"
    kind, with_client, reshape = SHAPES[shape]
    if client:
        kind = with_client
    if "--enrich" in sys.argv:
        kind, reshape = RealInEnriched, enriched()
    decoder = msgspec.json.Decoder(kind)
    encoder = msgspec.json.Encoder()
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        out.write(encoder.encode(reshape(decoder.decode(line), client)) + b"\n")


if __name__ == "__main__":
    main()
