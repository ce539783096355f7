"""Seeded generator of NDJSON records for the benchmarks, in five shapes.

- `tweet` (about 1.2 KB a record): a statuses API payload: a nested user, entities with arrays
  of hashtags, links and mentions, dates in the API's format, ids as numbers and as strings,
  counts that are sometimes strings, and optional fields that are sometimes missing or null.
- `small` (about 515 bytes): a smaller tweet-like record: a nested user, ids and counts as
  strings, a URL, ISO 8601 dates, a hashtag fan-out, optional and null fields.
- `wide` (about 780 bytes): one flat object of 40 scalar fields (strings, integers, decimals,
  booleans, nullable strings).
- `large` (about 5.6 KB): an API record as a full timeline returns it: a retweet nested in
  each, users of 40 fields, entities, and text with non-ASCII characters written as `\\u`
  escapes (surrogate pairs for emoji); the context reads about 15 values, a tenth of the bytes.
- `real` (about 5.6 KB): statuses with the statistics of public API records: texts in the
  languages of a public sample (a fifth Japanese, some Korean, Arabic, Thai, a third with
  emoji), every non-ASCII character and every `/` escaped as the API writes them, a long HTML
  `source`, users of 42 fields, entities and media, a retweet in more than half; the
  context reads 8 values.
- `twitter` (about 5.6 KB): not generated: the 100 actual statuses of the public file
  `jsonexamples/twitter.json` of simdjson's repository (third-party data: fetched, never
  committed; its path in MAPPINGS_BENCH_TWITTER or `--twitter`), each written compact with
  non-ASCII characters as `\\u` escapes, repeated with fresh ids (`id`, `id_str`, and those of a
  retweeted status) until the size is reached; the `real` context maps it.
- `drawing` (for B6): a drawing with snake_case keys (for automatic entries) and a
  polymorphic collection of shapes tagged by `type`.

The same shape, seed and size always give the same bytes.

    python3 Benchmarks/generate.py --shape small --size-mb 10 --seed 7 > small.ndjson
"""

import argparse
import hashlib
import json
import os
import random
import sys

WORDS = (
    "the of and to in is you that it he was for on are as with his they at be this have from or one had by "
    "word but not what all were we when your can said there use an each which she do how their if will up "
    "other about out many then them these so some her would make like him into time has look two more write "
    "go see number no way could people my than first water been call who oil its now find long down day did "
    "get come made may part café naïve über 東京 🚀"
).split()
LANGS = ["en", "en", "en", "es", "fr", "ja", "pt", "de", "und"]
CLIENTS = [
    ("http://twitter.com/download/iphone", "Twitter for iPhone"),
    ("http://twitter.com/download/android", "Twitter for Android"),
    ("https://mobile.twitter.com", "Twitter Web App"),
    ("http://tapbots.com/tweetbot", "Tweetbot for iΟS"),
]
COLORS = ["black", "red", "#00ff00", "navy", "rgba(0,0,0,0.5)"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def api_date(rng):
    """A date as the statuses API writes it: `Wed Aug 29 17:12:58 +0000 2012`."""
    year = rng.randint(2008, 2024)
    month = rng.randint(1, 12)
    day = rng.randint(1, 28)
    # Zeller-free weekday: days since 1970-01-01 (a Thursday).
    y, m = (year - 1, month + 12) if month <= 2 else (year, month)
    days = 365 * y + y // 4 - y // 100 + y // 400 + (153 * (m - 3) + 2) // 5 + day - 719469
    weekday = DAYS[(days + 3) % 7]
    return "%s %s %02d %02d:%02d:%02d +0000 %d" % (
        weekday, MONTHS[month - 1], day, rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59), year)


def sentence(rng, count):
    return " ".join(rng.choice(WORDS) for _ in range(count))


def user(rng):
    uid = rng.randint(10_000, 2_000_000_000)
    name = sentence(rng, 2).title()
    record = {
        "id": uid,
        "id_str": str(uid),
        "name": name,
        "screen_name": name.replace(" ", "_")[:15],
        "location": sentence(rng, 2) if rng.random() < 0.7 else None,
        "description": sentence(rng, rng.randint(3, 15)),
        "url": "https://example.com/%s/%d" % (rng.choice(WORDS[:40]), uid) if rng.random() < 0.6 else None,
        "followers_count": rng.randint(0, 5_000_000),
        "friends_count": rng.randint(0, 5000),
        "created_at": api_date(rng),
        "profile_image_url": "http://pbs.twimg.com/profile_images/%d/photo.jpg" % uid,
    }
    if rng.random() < 0.8:
        record["verified"] = rng.random() < 0.1
    return record


def tweet(rng, serial):
    tid = 1_100_000_000_000_000 + serial * 7919 + rng.randint(0, 7000)  # below 2**53: jq holds numbers as doubles
    text = sentence(rng, rng.randint(4, 25))
    hashtags = [
        {"text": rng.choice(WORDS[:60]), "indices": [i * 7, i * 7 + 6]} for i in range(rng.choice([0, 0, 1, 2, 3]))
    ]
    urls = [
        {
            "url": "https://t.co/%x" % rng.getrandbits(40),
            "expanded_url": "https://example.org/%s/%d?ref=tw" % (rng.choice(WORDS[:40]), rng.randint(1, 99999)),
            "display_url": "example.org/…",
            "indices": [40, 63],
        }
        for _ in range(rng.choice([0, 1, 1, 2]))
    ]
    mentions = []
    for _ in range(rng.choice([0, 0, 1, 2])):
        mentioned = rng.randint(10_000, 2_000_000_000)
        mentions.append({
            "screen_name": "user%d" % mentioned, "name": sentence(rng, 2), "id": mentioned, "id_str": str(mentioned),
            "indices": [0, 10],
        })
    client = rng.choice(CLIENTS)
    reply = rng.randint(1, 10**15) if rng.random() < 0.3 else None
    record = {
        "created_at": api_date(rng),
        "id": tid,
        "id_str": str(tid),
        "text": text,
        "source": '<a href="%s" rel="nofollow">%s</a>' % client,
        "truncated": False,
        "in_reply_to_status_id": reply,
        "in_reply_to_status_id_str": str(reply) if reply else None,
        "user": user(rng),
        "geo": None,
        "coordinates": None,
        "place": None,
        "entities": {"hashtags": hashtags, "urls": urls, "user_mentions": mentions},
        "favorited": False,
        "retweeted": False,
    }
    retweets = rng.randint(0, 100_000)
    roll = rng.random()
    if roll < 0.5:
        record["retweet_count"] = retweets
    elif roll < 0.8:
        record["retweet_count"] = str(retweets)  # some feeds send counts as strings
    if rng.random() < 0.9:
        record["favorite_count"] = rng.randint(0, 100_000)
    if rng.random() < 0.85:
        record["lang"] = rng.choice(LANGS)
    return record


def fraction(rng, low, high):
    """A number with a fractional part (never integral: peers write 5.0 and 5 differently)."""
    return rng.randint(low * 4, high * 4 - 1) / 4 + 0.125


def shape(rng):
    """One element of a drawing's polymorphic `shapes` collection, tagged by `type`."""
    kind = rng.choice(["circle", "circle", "rect", "label"])
    if kind == "circle":
        record = {"type": "circle", "center_x": fraction(rng, 0, 2000), "center_y": fraction(rng, 0, 2000),
                  "radius": fraction(rng, 1, 300), "stroke_color": rng.choice(COLORS)}
    elif kind == "rect":
        record = {"type": "rect", "origin_x": fraction(rng, 0, 2000), "origin_y": fraction(rng, 0, 2000),
                  "width": fraction(rng, 1, 800), "height": fraction(rng, 1, 800), "stroke_color": rng.choice(COLORS)}
    else:
        record = {"type": "label", "origin_x": fraction(rng, 0, 2000), "origin_y": fraction(rng, 0, 2000),
                  "text": sentence(rng, rng.randint(1, 6)), "font_size": rng.randint(8, 72)}
    return record


def drawing(rng, serial):
    """A drawing record: snake_case keys (for automatic entries) and a polymorphic collection."""
    record = {
        "drawing_id": 5_000_000 + serial,
        "title": sentence(rng, rng.randint(1, 5)),
        "owner_name": sentence(rng, 2).title(),
        "created_at": api_date(rng),
        "layer_count": rng.randint(1, 12),
        "is_public": rng.random() < 0.5,
        "view_count": rng.randint(0, 1_000_000),
        "opacity": fraction(rng, 0, 1),
        "tags": [rng.choice(WORDS[:60]) for _ in range(rng.randint(0, 4))],
        "shapes": [shape(rng) for _ in range(rng.randint(1, 8))],
    }
    if rng.random() < 0.7:
        record["description"] = sentence(rng, rng.randint(3, 12))
    return record


def iso_date(rng):
    """An instant as ISO 8601 in UTC, `2012-08-29T17:12:58Z`."""
    return "%d-%02d-%02dT%02d:%02d:%02dZ" % (
        rng.randint(2008, 2024), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59),
        rng.randint(0, 59))


def small(rng, serial):
    """A tweet-like record of about 515 bytes."""
    tid = 1_100_000_000_000_000 + serial * 7919 + rng.randint(0, 7000)
    uid = rng.randint(10_000, 2_000_000_000)
    name = sentence(rng, 2).title()
    account = {
        "id_str": str(uid),
        "name": name,
        "screen_name": name.replace(" ", "_")[:15],
        "url": "https://example.com/%s/%d" % (rng.choice(WORDS[:40]), uid) if rng.random() < 0.6 else None,
        "followers_count": rng.randint(0, 5_000_000) if rng.random() < 0.7 else str(rng.randint(0, 5000)),
        "created_at": iso_date(rng),
        "description": sentence(rng, rng.randint(2, 9)),
        "profile_image_url": "http://pbs.twimg.com/profile_images/%d/photo.jpg" % uid,
    }
    if rng.random() < 0.8:
        account["verified"] = rng.random() < 0.1
    reply = rng.randint(1, 10**15) if rng.random() < 0.3 else None
    record = {
        "id_str": str(tid),
        "created_at": iso_date(rng),
        "text": sentence(rng, rng.randint(4, 14)),
        "user": account,
        "hashtags": [{"text": rng.choice(WORDS[:60])} for _ in range(rng.choice([0, 1, 1, 2, 3]))],
        "in_reply_to_status_id_str": str(reply) if reply else None,
    }
    retweets = rng.randint(0, 100_000)
    if rng.random() < 0.6:
        record["retweet_count"] = retweets if rng.random() < 0.6 else str(retweets)
    if rng.random() < 0.85:
        record["lang"] = rng.choice(LANGS)
    return record


# The wide shape's fields: (JSON key, kind). Keys are snake_case; the context maps each to the
# camelCase property of the same name.
WIDE_FIELDS = (
    [("label_%02d" % i, "string") for i in range(10)]
    + [("count_%02d" % i, "int") for i in range(10)]
    + [("ratio_%02d" % i, "decimal") for i in range(10)]
    + [("flag_%02d" % i, "bool") for i in range(5)]
    + [("note_%02d" % i, "optional") for i in range(5)]
)


def wide(rng, serial):
    """A flat record of 40 scalar fields."""
    record = {}
    for key, kind in WIDE_FIELDS:
        if kind == "string":
            record[key] = sentence(rng, rng.randint(1, 3))
        elif kind == "int":
            record[key] = rng.randint(-1_000_000, 1_000_000_000)
        elif kind == "decimal":
            # Two decimals, the last never 0, so every peer writes the same digits back.
            record[key] = (rng.randint(-10_000, 10_000) * 10 + rng.randint(1, 9)) / 100
        elif kind == "bool":
            record[key] = rng.random() < 0.5
        else:
            record[key] = sentence(rng, 2) if rng.random() < 0.5 else None
    return record


def full_user(rng):
    """A user as a timeline API writes it: 40 fields, most of which a reshape never reads."""
    record = user(rng)
    uid = record["id"]
    record.update({
        "protected": rng.random() < 0.05,
        "listed_count": rng.randint(0, 20_000),
        "favourites_count": rng.randint(0, 200_000),
        "statuses_count": rng.randint(0, 500_000),
        "utc_offset": None,
        "time_zone": None,
        "geo_enabled": rng.random() < 0.3,
        "contributors_enabled": False,
        "is_translator": False,
        "is_translation_enabled": False,
        "profile_background_color": "%06X" % rng.getrandbits(24),
        "profile_background_image_url": "http://abs.twimg.com/images/themes/theme%d/bg.png" % rng.randint(1, 20),
        "profile_background_image_url_https": "https://abs.twimg.com/images/themes/theme%d/bg.png" % rng.randint(1, 20),
        "profile_background_tile": rng.random() < 0.2,
        "profile_image_url_https": "https://pbs.twimg.com/profile_images/%d/photo_normal.jpg" % uid,
        "profile_banner_url": "https://pbs.twimg.com/profile_banners/%d/%d" % (uid, rng.randint(10**9, 2 * 10**9)),
        "profile_link_color": "%06X" % rng.getrandbits(24),
        "profile_sidebar_border_color": "%06X" % rng.getrandbits(24),
        "profile_sidebar_fill_color": "%06X" % rng.getrandbits(24),
        "profile_text_color": "%06X" % rng.getrandbits(24),
        "profile_use_background_image": True,
        "has_extended_profile": rng.random() < 0.5,
        "default_profile": rng.random() < 0.5,
        "default_profile_image": False,
        "following": None,
        "follow_request_sent": None,
        "notifications": None,
        "translator_type": "none",
        "withheld_in_countries": [],
        "entities": {"description": {"urls": []}},
    })
    return record


def full_tweet(rng, serial):
    """A tweet with a full user, its media and metadata."""
    record = tweet(rng, serial)
    record["user"] = full_user(rng)
    record["text"] = sentence(rng, rng.randint(12, 30))
    record["metadata"] = {"iso_language_code": record.get("lang", "en"), "result_type": "recent"}
    record["is_quote_status"] = False
    record["contributors"] = None
    record["possibly_sensitive"] = rng.random() < 0.02
    record["entities"]["symbols"] = []
    record["extended_entities"] = {"media": [
        {
            "id": rng.randint(10**17, 10**18), "id_str": str(rng.randint(10**17, 10**18)),
            "media_url_https": "https://pbs.twimg.com/media/%x.jpg" % rng.getrandbits(48),
            "type": "photo", "indices": [70, 93],
            "sizes": {size: {"w": w, "h": h, "resize": "fit"}
                      for size, w, h in (("thumb", 150, 150), ("small", 680, 510), ("large", 2048, 1536))},
        }
        for _ in range(rng.choice([0, 1, 1, 2]))
    ]}
    record.setdefault("retweet_count", rng.randint(0, 100_000))
    record.setdefault("favorite_count", rng.randint(0, 100_000))
    return record


def large(rng, serial):
    """A retweet as a timeline returns it: the retweet and the tweet it repeats, both full."""
    record = full_tweet(rng, serial)
    record["retweeted_status"] = full_tweet(rng, serial + 10_000_000)
    return record


# real ------------------------------------------------------------------------------------------
# Statuses with the statistics of the actual statuses of the twitter shape (simdjson's
# twitter.json, a search's results), so that machines without that file measure what it measures
# (B1 and B7 within 10% of it): about 5.6 KB a record; texts of about 120 characters, four in five
# Japanese (then English, Spanish, Portuguese, Korean), a third of them with emoji; every
# non-ASCII character and every "/" escaped (`\u65e5`, `https:\/\/t.co`), as the API writes
# them, about 300 `\u` escapes a record; a long HTML `source`; users of 42 fields, named and
# described in those languages; entities with few hashtags, URLs and media (one record in ten or
# fewer), mentions in most; a retweet nested in seven records of ten and a quote in one of thirty.

KANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソタチツテト"
KANJI = "日本語東京大学新聞今日明天気時間人生世界仕事会社電話友達映画音楽写真家族学校先生"
HANGUL = "한국어안녕하세요감사합니다사랑해요오늘날씨좋아요친구"
ARABIC = "مرحبا بالعالم شكرا جزيلا اليوم الطقس جميل"
THAI = "สวัสดีครับขอบคุณมากวันนี้อากาศดี"
EMOJI = "😀😂🥰😍🙏🔥✨🎉👍💯❤️🚀🌸😭🤔"
LATIN = "el la de que y en los se del las por un para con no una su al es lo como más pero sus le ya o este sí " \
        "porque esta entre cuando muy sin sobre também até não são você está então"


def real_text(rng, lang):
    """A status text in `lang`, of about a tweet's length."""
    if lang == "ja":
        words = ["".join(rng.choice(KANA + KANJI) for _ in range(rng.randint(2, 6))) for _ in range(rng.randint(14, 40))]
        text = "".join(words)
    elif lang == "ko":
        text = " ".join("".join(rng.choice(HANGUL) for _ in range(rng.randint(2, 5))) for _ in range(rng.randint(4, 14)))
    elif lang == "ar":
        text = " ".join(rng.choice(ARABIC.split()) for _ in range(rng.randint(5, 16)))
    elif lang == "th":
        text = "".join(rng.choice(THAI) for _ in range(rng.randint(20, 70)))
    elif lang in ("es", "pt"):
        text = " ".join(rng.choice(LATIN.split()) for _ in range(rng.randint(6, 24)))
    else:
        text = sentence(rng, rng.randint(6, 24))
    if rng.random() < 0.35:
        text += " " + "".join(rng.choice(EMOJI) for _ in range(rng.randint(1, 3)))
    if rng.random() < 0.4:
        text += " https://t.co/%s" % "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789") for _ in range(10))
    return text


REAL_LANGS = ["ja"] * 16 + ["en"] * 2 + ["es", "pt", "ko"]
REAL_CLIENTS = CLIENTS + [
    ("https://about.twitter.com/products/tweetdeck", "TweetDeck"),
    ("http://www.hootsuite.com", "Hootsuite Inc."),
    ("https://ifttt.com", "IFTTT"),
]


def real_user(rng):
    """A user of the statuses API: 42 fields, a description in the user's language."""
    record = full_user(rng)
    lang = rng.choice(REAL_LANGS)
    record["name"] = real_text(rng, lang)[:10].strip() or record["name"]
    record["description"] = real_text(rng, lang)[:80]
    record["location"] = rng.choice([None, "東京", "Tokyo, Japan", "São Paulo", "New York, NY", "서울", ""])
    record["lang"] = None
    record["url"] = "https://t.co/%x" % rng.getrandbits(40) if rng.random() < 0.5 else None
    record["entities"] = {"description": {"urls": []}}
    if record["url"]:
        record["entities"]["url"] = {"urls": [{"url": record["url"], "expanded_url": "https://example.com/%d" % rng.randint(1, 99999),
                                               "display_url": "example.com", "indices": [0, 23]}]}
    return record


def real_status(rng, serial, depth=0):
    tid = 1_100_000_000_000_000 + serial * 7919 + rng.randint(0, 7000)
    lang = rng.choice(REAL_LANGS)
    text = real_text(rng, lang)
    client = rng.choice(REAL_CLIENTS)
    hashtags = [{"text": rng.choice([rng.choice(WORDS[:60]), "日本", "東京", "música", "한국"]), "indices": [i * 9, i * 9 + 8]}
                for i in range(rng.choice([0] * 12 + [1, 2]))]
    mentions = []
    for _ in range(rng.choice([0, 1, 1, 1, 2])):
        mentioned = rng.randint(10_000, 2_000_000_000)
        mentions.append({"screen_name": "user%d" % mentioned, "name": real_text(rng, rng.choice(REAL_LANGS))[:20],
                         "id": mentioned, "id_str": str(mentioned), "indices": [0, 12]})
    urls = [{"url": "https://t.co/%x" % rng.getrandbits(40),
             "expanded_url": "https://example.org/%s/%d?utm_source=twitter" % (rng.choice(WORDS[:40]), rng.randint(1, 99999)),
             "display_url": "example.org/…", "indices": [40, 63]} for _ in range(rng.choice([0] * 7 + [1]))]
    reply = rng.randint(1, 10**17) if rng.random() < 0.25 else None
    record = {
        "created_at": api_date(rng),
        "id": tid,
        "id_str": str(tid),
        "text": text,
        "truncated": False,
        "entities": {"hashtags": hashtags, "symbols": [], "user_mentions": mentions, "urls": urls},
        "metadata": {"iso_language_code": lang, "result_type": "recent"},
        "source": '<a href="%s" rel="nofollow">%s</a>' % client,
        "in_reply_to_status_id": reply,
        "in_reply_to_status_id_str": str(reply) if reply else None,
        "in_reply_to_user_id": rng.randint(1, 10**9) if reply else None,
        "in_reply_to_user_id_str": None,
        "in_reply_to_screen_name": ("user%d" % rng.randint(1, 10**6)) if reply else None,
        "user": real_user(rng),
        "geo": None,
        "coordinates": None,
        "place": None if rng.random() < 0.9 else {
            "id": "%016x" % rng.getrandbits(64), "url": "https://api.twitter.com/1.1/geo/id/%016x.json" % rng.getrandbits(64),
            "place_type": "city", "name": rng.choice(["Shibuya", "São Paulo", "Madrid"]), "full_name": "Somewhere, Earth",
            "country_code": rng.choice(["JP", "BR", "ES"]), "country": rng.choice(["日本", "Brasil", "España"]),
            "contained_within": [], "bounding_box": {"type": "Polygon", "coordinates": [[[139.6, 35.6], [139.8, 35.6], [139.8, 35.7], [139.6, 35.7]]]},
            "attributes": {}},
        "contributors": None,
        "is_quote_status": False,
        "retweet_count": rng.randint(0, 50_000),
        "favorite_count": rng.randint(0, 100_000),
        "favorited": False,
        "retweeted": False,
        "lang": lang,
    }
    if rng.random() < 0.06:
        media_id = rng.randint(10**17, 10**18)
        media = {"id": media_id, "id_str": str(media_id), "indices": [70, 93],
                 "media_url": "http://pbs.twimg.com/media/%x.jpg" % rng.getrandbits(48),
                 "media_url_https": "https://pbs.twimg.com/media/%x.jpg" % rng.getrandbits(48),
                 "url": "https://t.co/%x" % rng.getrandbits(40), "display_url": "pic.twitter.com/%x" % rng.getrandbits(40),
                 "expanded_url": "https://twitter.com/user/status/%d/photo/1" % tid, "type": "photo",
                 "sizes": {size: {"w": w, "h": h, "resize": "fit" if size != "thumb" else "crop"}
                           for size, w, h in (("thumb", 150, 150), ("medium", 1200, 900), ("small", 680, 510), ("large", 2048, 1536))}}
        record["entities"]["media"] = [media]
        record["extended_entities"] = {"media": [media]}
        record["possibly_sensitive"] = False
    if depth == 0 and rng.random() < 0.7:
        record["retweeted_status"] = real_status(rng, serial + 10_000_000, depth + 1)
    elif depth == 0 and rng.random() < 0.1:
        record["is_quote_status"] = True
        record["quoted_status"] = real_status(rng, serial + 20_000_000, depth + 1)
    return record


def real(rng, serial):
    return real_status(rng, serial)


SHAPES = {"tweet": tweet, "small": small, "wide": wide, "drawing": drawing, "large": large, "real": real}
# Shapes written with every non-ASCII character as a `\u` escape, as many APIs send them.
ESCAPED = {"large", "real"}
# Shapes written with "/" escaped as "\/", as the statuses API writes it.
SLASHES = {"real"}


def twitter_file():
    """The path of simdjson's jsonexamples/twitter.json (MAPPINGS_BENCH_TWITTER, else under
    .build/benchmark-data), or None when it is not on this machine."""
    path = os.environ.get("MAPPINGS_BENCH_TWITTER") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".build", "benchmark-data", "twitter.json")
    return path if os.path.isfile(path) else None


def twitter(out, size_bytes):
    """The actual statuses, repeated with fresh ids until `size_bytes` are written; returns the record count."""
    path = twitter_file()
    if path is None:
        raise FileNotFoundError("the twitter shape needs simdjson's jsonexamples/twitter.json: set "
                                "MAPPINGS_BENCH_TWITTER to its path (or put it at .build/benchmark-data/twitter.json)")
    with open(path, "rb") as source:
        statuses = json.load(source)["statuses"]
    written = serial = 0
    while written < size_bytes:
        status = json.loads(json.dumps(statuses[serial % len(statuses)]))
        # A repetition's ids are new ones of as many digits: a record is never a copy of another.
        shift = (serial // len(statuses)) * 1009
        for record in (status, status.get("retweeted_status"), status.get("quoted_status")):
            if isinstance(record, dict) and isinstance(record.get("id"), int):
                record["id"] += shift
                record["id_str"] = str(record["id"])
        line = (json.dumps(status, ensure_ascii=True, separators=(",", ":")) + "\n").encode()
        out.write(line)
        written += len(line)
        serial += 1
    return serial


def generate(out, size_bytes, seed=7, shape="tweet"):
    """Writes records to the binary stream `out` until `size_bytes` are written; returns the record count."""
    if shape == "twitter":
        return twitter(out, size_bytes)
    rng = random.Random(seed)
    make = SHAPES[shape]
    written = 0
    serial = 0
    while written < size_bytes:
        text = json.dumps(make(rng, serial), ensure_ascii=shape in ESCAPED, separators=(",", ":"))
        if shape in SLASHES:
            text = text.replace("/", "\\/")
        line = (text + "\n").encode()
        out.write(line)
        written += len(line)
        serial += 1
    return serial


def version():
    """A short hash of this generator's text: files it wrote carry it in their names."""
    with open(os.path.abspath(__file__), "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()[:8]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shape", choices=sorted(SHAPES) + ["twitter"], default="tweet")
    arguments = parser.parse_args()
    generate(sys.stdout.buffer, int(arguments.size_mb * 1024 * 1024), arguments.seed, arguments.shape)


if __name__ == "__main__":
    main()
