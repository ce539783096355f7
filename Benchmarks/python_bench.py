#!/usr/bin/env python3
"""B10: Mappings from Python, in one process, against what a Python user would write instead.

    python Benchmarks/python_bench.py [--size-mb 50] [--runs 5] [--memory-mb 1024] [--smoke]

Runs in a venv that has the `mappings` wheel (tools/build-python-wheel), msgspec, orjson,
pydantic, pyarrow and polars (Benchmarks/run B10 makes it: .build/benchmark-python).

- map_lines: the real-like and the small shapes into Python values — `catalog.map_lines` on
  the calling thread (workers=0), on 1 and on 2 workers; msgspec with Structs declaring only
  the fields read and the reshape of Benchmarks/peers/reshape_msgspec.py; orjson with the dict
  reshape of Benchmarks/peers/reshape.py; pydantic v2 models of the fields read, then the same
  reshape.
- to_arrow: the same records into an Arrow table of the context's columns — `catalog.to_arrow`
  (workers 0, 1, 2);
  `pyarrow.json.read_json` with an explicit schema of the fields read, then the renames and
  conversions in pyarrow.compute; `polars.read_ndjson` with a schema and the same `select`.
  (pyarrow's reader cannot read the small shape, whose counts are numbers or strings.)
- memory: the peak RSS of to_arrow and of the two peers over a file of --memory-mb, each in a
  process of its own.

Times are CPU seconds of the process (user + system: what a core does), and wall seconds; the
median of --runs rounds in which the contenders take turns (so that the host's load, which
changes, weighs on each alike). Every contender's output is compared with Mappings' first, in a
run before the timed ones, and none is held while they are timed: a difference stops the run
(exit status 1).
"""

import argparse
import datetime
import decimal
import os
import statistics
import subprocess
import sys
import time
from typing import List, Optional, Union

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "peers"))

import generate  # noqa: E402
import reshape as dict_reshapes  # noqa: E402
import reshape_msgspec  # noqa: E402

CONTEXTS = os.path.join(HERE, "contexts")
SCRIPTS = os.path.join(HERE, "scripts")
CONTEXT = {"real": "$RealStatus", "small": "$SmallTweet", "twitter": "$RealStatus"}
API_DATE = "%a %b %d %H:%M:%S %z %Y"


class Mismatch(Exception):
    pass


def data(directory, shape, size_mb, seed=7):
    # Named per version of the generator, as Benchmarks/run names its files.
    path = os.path.join(directory, "%s-%gmb-seed%d-%s.ndjson" % (shape, size_mb, seed, generate.version()))
    if not os.path.exists(path):
        os.makedirs(directory, exist_ok=True)
        with open(path + ".tmp", "wb") as out:
            generate.generate(out, int(size_mb * 1024 * 1024), seed, shape)
        os.replace(path + ".tmp", path)
    return path


def verified(contenders, rows=lambda result: result):
    """Runs each contender once (which warms it: contexts compiled, models built) and compares its
    result, as `rows` reads it, with the first's; the number of rows. Nothing is held after: the
    timed runs start from the same heap (the collector's full passes cost what the heap holds)."""
    reference = None
    for name, function in contenders:
        result = rows(function())
        if reference is None:
            reference = result
        else:
            check(name, reference, result)
        del result
    count = len(reference)
    del reference
    return count


def measure_all(contenders, runs):
    """Each contender's median CPU and wall seconds over `runs` rounds in which the contenders take
    turns (the first of a round rotating), so that a change in the machine's load in the middle
    touches every contender alike rather than the one timed then. A run's result is dropped once
    its time is taken."""
    cpu = dict((name, []) for name, _ in contenders)
    wall = dict((name, []) for name, _ in contenders)
    for round_index in range(runs):
        shift = round_index % len(contenders)
        for name, function in contenders[shift:] + contenders[:shift]:
            started, started_cpu = time.perf_counter(), time.process_time()
            result = function()
            wall[name].append(time.perf_counter() - started)
            cpu[name].append(time.process_time() - started_cpu)
            del result
    return [(name, statistics.median(cpu[name]), statistics.median(wall[name])) for name, _ in contenders]


# pydantic v2: models of the fields read, then the dict reshape --------------------------------

def pydantic_peers():
    from pydantic import BaseModel

    class Hashtag(BaseModel):
        text: str

    class RealUser(BaseModel):
        id_str: str
        screen_name: str
        followers_count: int

    class RealEntities(BaseModel):
        hashtags: List[Hashtag]

    class Real(BaseModel):
        id_str: str
        text: str
        created_at: str
        user: RealUser
        entities: RealEntities
        lang: Optional[str] = None

    class SmallUser(BaseModel):
        id_str: str
        name: str
        screen_name: str
        followers_count: Union[int, str]
        created_at: datetime.datetime
        url: Optional[str] = None
        verified: Optional[bool] = None

    class Small(BaseModel):
        id_str: str
        created_at: datetime.datetime
        text: str
        user: SmallUser
        hashtags: List[Hashtag]
        retweet_count: Union[int, str] = 0
        lang: Optional[str] = None
        in_reply_to_status_id_str: Optional[str] = None

    def real(line):
        r = Real.model_validate_json(line)
        return {"id": int(r.id_str), "text": r.text,
                "createdAt": datetime.datetime.strptime(r.created_at, API_DATE).astimezone(datetime.timezone.utc),
                "userId": int(r.user.id_str), "userName": r.user.screen_name, "followers": r.user.followers_count,
                "tags": [tag.text for tag in r.entities.hashtags], "lang": r.lang}

    def small(line):
        r = Small.model_validate_json(line)
        u = r.user
        return {"id": int(r.id_str), "createdAt": r.created_at, "text": r.text,
                "user": {"id": int(u.id_str), "name": u.name, "screenName": u.screen_name, "url": u.url,
                         "followers": int(u.followers_count), "verified": bool(u.verified), "joined": u.created_at},
                "tags": [tag.text for tag in r.hashtags], "retweets": int(r.retweet_count), "lang": r.lang,
                "replyTo": int(r.in_reply_to_status_id_str) if r.in_reply_to_status_id_str is not None else None}

    return {"real": real, "small": small, "twitter": real}


def plain(value):
    """A value with datetimes as ISO 8601 text (Z) and Structs as dicts: what outputs compare as."""
    import msgspec

    if isinstance(value, msgspec.Struct):
        value = msgspec.structs.asdict(value)
    if isinstance(value, dict):
        return {key: plain(member) for key, member in value.items()}
    if isinstance(value, list):
        return [plain(element) for element in value]
    if isinstance(value, datetime.datetime):
        return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return value


def check(name, ours, theirs):
    if len(ours) != len(theirs):
        raise Mismatch("%s: %d values, Mappings %d" % (name, len(theirs), len(ours)))
    for index, (mine, other) in enumerate(zip(ours, theirs)):
        if plain(mine) != plain(other):
            raise Mismatch("%s: record %d differs:\n  mappings %r\n  %s %r" % (
                name, index + 1, plain(mine), name, plain(other)))


def table(title, rows, size, records):
    print()
    print(title)
    print("| contender | CPU s | wall s | µs CPU/record | Mappings vs it (CPU) |")
    print("|---|---:|---:|---:|---:|")
    ours = rows[0][1]
    for name, cpu, wall in rows:
        ratio = "—" if name == rows[0][0] else "%.2f×" % (cpu / ours)
        print("| %s | %.3f | %.3f | %.2f | %s |" % (name, cpu, wall, cpu * 1e6 / max(records, 1), ratio))


def bench_values(catalog, shape, path, runs):
    import msgspec
    import orjson

    with open(path, "rb") as file:
        lines = file.read().splitlines()
    context = CONTEXT[shape]
    kind, _, reshape = reshape_msgspec.SHAPES[shape]
    decoder = msgspec.json.Decoder(kind)
    dict_reshape = dict_reshapes.RESHAPES[shape]
    pydantic_reshape = pydantic_peers()[shape]

    contenders = [
        ("mappings map_lines, calling thread", lambda: [r.value for r in catalog.map_lines(context, lines, workers=0)]),
        ("mappings map_lines, 1 worker", lambda: [r.value for r in catalog.map_lines(context, lines, workers=1)]),
        ("mappings map_lines, 2 workers", lambda: [r.value for r in catalog.map_lines(context, lines, workers=2)]),
        ("msgspec Structs", lambda: [reshape(decoder.decode(line), False) for line in lines]),
        ("orjson + dicts", lambda: [dict_reshape(orjson.loads(line), False) for line in lines]),
        ("pydantic v2", lambda: [pydantic_reshape(line) for line in lines]),
    ]
    verified(contenders)
    rows = measure_all(contenders, runs)
    table("B10 map_lines (%s, %s): NDJSON → %s → Python values, median of %d" % (
        shape, human(os.path.getsize(path)), context, runs), rows, os.path.getsize(path), len(lines))
    return rows, len(lines)


# Arrow peers ------------------------------------------------------------------------------------

def pyarrow_real(path):
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    schema = pa.schema([
        ("id_str", pa.string()), ("text", pa.string()), ("created_at", pa.string()),
        ("user", pa.struct([("id_str", pa.string()), ("screen_name", pa.string()), ("followers_count", pa.int64())])),
        ("entities", pa.struct([("hashtags", pa.list_(pa.struct([("text", pa.string())])))])),
        ("lang", pa.string()),
    ])
    read = pj.read_json(path, parse_options=pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore"))
    user = read.column("user")
    hashtags = pc.struct_field(read.column("entities"), "hashtags")
    tags = pa.chunked_array([
        pa.ListArray.from_arrays(chunk.offsets, pc.struct_field(chunk.values, "text"), mask=chunk.is_null())
        for chunk in hashtags.chunks])
    return pa.table({
        "id": pc.cast(read.column("id_str"), pa.int64()),
        "text": read.column("text"),
        "createdAt": pc.cast(pc.strptime(read.column("created_at"), format=API_DATE, unit="us"),
                             pa.timestamp("us", tz="UTC")),
        "userId": pc.cast(pc.struct_field(user, "id_str"), pa.int64()),
        "userName": pc.struct_field(user, "screen_name"),
        "followers": pc.struct_field(user, "followers_count"),
        "tags": tags,
        "lang": read.column("lang"),
    })


def polars_frame(path, shape):
    import polars as pl

    if shape in ("real", "twitter"):
        schema = {
            "id_str": pl.String, "text": pl.String, "created_at": pl.String,
            "user": pl.Struct({"id_str": pl.String, "screen_name": pl.String, "followers_count": pl.Int64}),
            "entities": pl.Struct({"hashtags": pl.List(pl.Struct({"text": pl.String}))}), "lang": pl.String}
        return pl.read_ndjson(path, schema=schema).select(
            pl.col("id_str").cast(pl.Int64).alias("id"), "text",
            pl.col("created_at").str.strptime(pl.Datetime("us", "UTC"), API_DATE).alias("createdAt"),
            pl.col("user").struct.field("id_str").cast(pl.Int64).alias("userId"),
            pl.col("user").struct.field("screen_name").alias("userName"),
            pl.col("user").struct.field("followers_count").alias("followers"),
            pl.col("entities").struct.field("hashtags").list.eval(pl.element().struct.field("text")).alias("tags"),
            "lang")
    schema = {
        "id_str": pl.String, "created_at": pl.String, "text": pl.String,
        "user": pl.Struct({"id_str": pl.String, "name": pl.String, "screen_name": pl.String, "url": pl.String,
                           "followers_count": pl.String, "created_at": pl.String, "verified": pl.Boolean}),
        "hashtags": pl.List(pl.Struct({"text": pl.String})), "retweet_count": pl.String, "lang": pl.String,
        "in_reply_to_status_id_str": pl.String}
    iso = "%Y-%m-%dT%H:%M:%SZ"
    user = pl.col("user").struct
    return pl.read_ndjson(path, schema=schema).select(
        pl.col("id_str").cast(pl.Int64).alias("id"),
        pl.col("created_at").str.strptime(pl.Datetime("us", "UTC"), iso).alias("createdAt"), "text",
        pl.struct(
            user.field("id_str").cast(pl.Int64).alias("id"), user.field("name"),
            user.field("screen_name").alias("screenName"), user.field("url"),
            user.field("followers_count").cast(pl.Int64).alias("followers"),
            user.field("verified").fill_null(False).alias("verified"),
            user.field("created_at").str.strptime(pl.Datetime("us", "UTC"), iso).alias("joined")).alias("user"),
        pl.col("hashtags").list.eval(pl.element().struct.field("text")).alias("tags"),
        pl.col("retweet_count").cast(pl.Int64).fill_null(0).alias("retweets"), "lang",
        pl.col("in_reply_to_status_id_str").cast(pl.Int64).alias("replyTo"))


def bench_arrow(catalog, shape, path, runs):
    import polars as pl

    context = CONTEXT[shape]
    contenders = [("mappings to_arrow, calling thread", lambda: catalog.to_arrow(context, path, workers=0)[0]),
                  ("mappings to_arrow, 1 worker", lambda: catalog.to_arrow(context, path, workers=1)[0]),
                  ("mappings to_arrow, 2 workers", lambda: catalog.to_arrow(context, path, workers=2)[0])]
    if shape in ("real", "twitter"):
        contenders.append(("pyarrow.json + compute", lambda: pyarrow_real(path)))
    contenders.append(("polars read_ndjson + select", lambda: polars_frame(path, shape)))
    records = verified(
        contenders, lambda result: (result.to_arrow() if isinstance(result, pl.DataFrame) else result).to_pylist())
    rows = measure_all(contenders, runs)
    table("B10 to_arrow (%s, %s): NDJSON → %s → Arrow table, median of %d" % (
        shape, human(os.path.getsize(path)), context, runs), rows, os.path.getsize(path), records)
    if shape not in ("real", "twitter"):
        print("(pyarrow.json.read_json cannot read this shape: its counts are numbers in some records and strings "
              "in others)")
    return rows


MEMORY_SCRIPT = """
import sys
sys.path.insert(0, %(here)r); sys.path.insert(0, %(peers)r)
which, path = sys.argv[1], sys.argv[2]
if which == "mappings":
    import mappings
    table, rejects = mappings.load(%(contexts)r, scripts=%(scripts)r).to_arrow("$RealStatus", path)
elif which == "pyarrow":
    from python_bench import pyarrow_real
    table = pyarrow_real(path)
else:
    from python_bench import polars_frame
    table = polars_frame(path, "real")
# VmHWM, not ru_maxrss: Linux carries the parent's ru_maxrss over fork and exec.
peak = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
print(len(table), peak)
"""


def bench_memory(path):
    script = MEMORY_SCRIPT % {"here": HERE, "peers": os.path.join(HERE, "peers"), "contexts": CONTEXTS,
                              "scripts": SCRIPTS}
    print()
    print("B10 memory: peak RSS reading %s of the real-like shape into an Arrow table, a process each" % human(
        os.path.getsize(path)))
    print("| contender | rows | peak RSS |")
    print("|---|---:|---:|")
    peaks = {}
    for which, name in (("mappings", "mappings to_arrow"), ("pyarrow", "pyarrow.json + compute"),
                        ("polars", "polars read_ndjson + select")):
        done = subprocess.run([sys.executable, "-c", script, which, path], capture_output=True, text=True)
        if done.returncode != 0:
            raise Mismatch("memory, %s: %s" % (name, done.stderr.strip()[-400:]))
        rows, kib = done.stdout.split()
        peaks[which] = int(kib)
        print("| %s | %s | %s |" % (name, format(int(rows), ","), human(int(kib) * 1024)))
    return peaks


def human(size):
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return "%.1f %s" % (size, unit) if unit != "B" else "%d B" % size
        size /= 1024.0


def main():
    parser = argparse.ArgumentParser(description="B10: Mappings from Python against the Python peers.")
    parser.add_argument("--size-mb", type=float, default=50)
    parser.add_argument("--memory-mb", type=float, default=1024, help="the memory part's input (0: skip it)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--shapes", default="real,small,twitter" if generate.twitter_file() else "real,small",
                        help="real, small and twitter (the actual statuses, when generate.twitter_file finds them)")
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(HERE), ".build", "benchmark-data"))
    parser.add_argument("--smoke", action="store_true", help="small data, one run: for the tests")
    arguments = parser.parse_args()
    if arguments.smoke:
        arguments.size_mb, arguments.memory_mb, arguments.runs = 0.25, 0.5, 1
    import mappings

    catalog = mappings.load(CONTEXTS, scripts=SCRIPTS)
    print("B10 on %s, %d cores; Python %s; mappings %s" % (
        sys.platform, os.cpu_count(), sys.version.split()[0], mappings.__version__))
    goals = []
    try:
        for shape in [name.strip() for name in arguments.shapes.split(",") if name.strip()]:
            path = data(arguments.data_dir, shape, arguments.size_mb)
            values, _ = bench_values(catalog, shape, path, arguments.runs)
            arrow = bench_arrow(catalog, shape, path, arguments.runs)
            if shape in ("real", "twitter"):
                # The real-like shape's goals keep their words; the actual statuses' say the shape.
                label = "" if shape == "real" else shape + ": "
                cpu = dict((name, seconds) for name, seconds, _ in values)
                arrow_cpu = dict((name, seconds) for name, seconds, _ in arrow)
                # Per core: CPU seconds on the calling thread (workers=0), as msgspec's; with a
                # worker lane beside the caller, the hand-over between the two cores costs more.
                ours = cpu["mappings map_lines, calling thread"]
                goals.append(label + "map_lines vs msgspec per core, CPU: %.2f× (goal 2×); 1 worker: %.2f×" % (
                    cpu["msgspec Structs"] / ours, cpu["msgspec Structs"] / cpu["mappings map_lines, 1 worker"]))
                ours = arrow_cpu["mappings to_arrow, calling thread"]
                one = arrow_cpu["mappings to_arrow, 1 worker"]
                goals.append(label + "to_arrow vs pyarrow + compute per core, CPU: %.2f× (goal 1.5×); 1 worker: %.2f×" % (
                    arrow_cpu["pyarrow.json + compute"] / ours, arrow_cpu["pyarrow.json + compute"] / one))
                goals.append(label + "to_arrow vs polars per core, CPU: %.2f× (goal 1.5×); 1 worker: %.2f×" % (
                    arrow_cpu["polars read_ndjson + select"] / ours, arrow_cpu["polars read_ndjson + select"] / one))
        if arguments.memory_mb > 0:
            peaks = bench_memory(data(arguments.data_dir, "real", arguments.memory_mb))
            goals.append("peak RSS, to_arrow vs pyarrow: %s vs %s (goal: below)" % (
                human(peaks["mappings"] * 1024), human(peaks["pyarrow"] * 1024)))
    except Mismatch as mismatch:
        print("\nerror: outputs differ, no timing counts: %s" % mismatch, file=sys.stderr)
        return 1
    print()
    for goal in goals:
        print("goal: " + goal)
    return 0


if __name__ == "__main__":
    sys.exit(main())
