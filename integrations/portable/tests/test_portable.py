"""tools/build-portable's binaries in a minimal Debian root made with debootstrap (no Swift, no
Lua): they check, map and stream there, Lua in process and in worker processes, and write what
the regular build writes."""

import os
import pathlib
import shutil
import subprocess

from debian import REPOSITORY, debian_root, mounted_proc, needs_root

MAPPINGS = os.environ.get("MAPPINGS_BINARY", str(REPOSITORY / ".build" / "debug" / "mappings"))


@needs_root
def test_the_portable_binaries_run_where_there_is_no_swift_and_no_lua():
    bin_dir = pathlib.Path(
        subprocess.run([str(REPOSITORY / "tools" / "build-portable")], check=True, capture_output=True, text=True,
                       timeout=3600).stdout.strip().splitlines()[-1]
    )
    root = debian_root()
    found = subprocess.run(
        ["find", str(root), "(", "-name", "libswiftCore*", "-o", "-name", "liblua*", "-o", "-name", "swift", ")"],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    assert found == [], found
    place = root / "opt" / "mappings"
    shutil.rmtree(place, ignore_errors=True)
    place.mkdir(parents=True)
    for name in ["mappings", "mappings-lua-worker"]:
        shutil.copy2(bin_dir / name, place / name)
    for name in ["contexts", "scripts"]:
        shutil.copytree(REPOSITORY / name, place / name)
    shutil.copy2(REPOSITORY / "Examples" / "twitter" / "tweet.json", place)
    shutil.copy2(REPOSITORY / "Examples" / "pipeline" / "tweets.ndjson", place)
    with mounted_proc(root):
        def inside(command: str) -> subprocess.CompletedProcess:
            return subprocess.run(
                ["chroot", str(root), "/bin/sh", "-c", "cd /opt/mappings && " + command],
                capture_output=True, timeout=300, check=False,
            )

        def here(*arguments: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
            return subprocess.run([MAPPINGS, *arguments], cwd=REPOSITORY, input=stdin, capture_output=True,
                                  timeout=300, check=False)

        checked = inside("./mappings check")
        assert checked.returncode == 0 and b"4 of 4 tests passed" in checked.stdout, checked.stderr
        mapped = inside("./mappings map --context '$TweetModel' tweet.json")
        assert mapped.returncode == 0, mapped.stderr
        assert mapped.stdout == here("map", "--context", "$TweetModel", "Examples/twitter/tweet.json").stdout
        records = (REPOSITORY / "Examples" / "pipeline" / "tweets.ndjson").read_bytes()
        expected = here("stream", "--context", "$TweetModel", stdin=records)
        for isolation in ["none", "process"]:
            streamed = inside(f"./mappings stream --context '$TweetModel' --lua-isolation {isolation} < tweets.ndjson")
            assert streamed.returncode == expected.returncode == 1, streamed.stderr
            assert streamed.stdout == expected.stdout
            assert b"read 6, written 3, rejected 3" in streamed.stderr
