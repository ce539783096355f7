"""tools/release's packages as a user without Swift gets them: the tarball holds what it says,
and the .deb, installed with dpkg in a clean Debian root, runs the README's quick start and
first mapping (init, map, test) and streams into SQLite once the library it recommends is
installed."""

import pathlib
import re
import shutil
import sqlite3
import subprocess
import tarfile

from debian import REPOSITORY, clean_copy, mounted_proc, needs_root

README = (REPOSITORY / "README.md").read_text()


def readme_output(command: str) -> bytes:
    """What the README shows a command printing: the lines after `$ COMMAND` up to the next
    command or the block's end."""
    start = README.index(f"$ {command}\n") + len(command) + 3
    lines = []
    for line in README[start:].split("\n"):
        if line.startswith("$ ") or line.startswith("```"):
            break
        lines.append(line + "\n")
    return "".join(lines).encode()


def commit() -> str:
    """The commit tools/release stamps (tools/build-stamp)."""
    head = subprocess.run(["git", "rev-parse", "--short=7", "HEAD"], cwd=REPOSITORY, check=True, capture_output=True,
                          text=True).stdout.strip()
    changed = subprocess.run(["git", "status", "--porcelain"], cwd=REPOSITORY, check=True, capture_output=True,
                             text=True).stdout
    return head + ("-modified" if changed else "")


@needs_root
def test_the_packages_install_and_run_the_readme_without_swift(tmp_path):
    made = subprocess.run([str(REPOSITORY / "tools" / "release"), "--out", str(tmp_path / "out")], check=True,
                          capture_output=True, text=True, timeout=3600).stdout.split()
    version = (REPOSITORY / "VERSION").read_text().strip()
    tarball, deb, sums = (pathlib.Path(path) for path in made)
    architecture = subprocess.run(["dpkg", "--print-architecture"], check=True, capture_output=True,
                                  text=True).stdout.strip()
    assert deb.name == f"mappings_{version}_{architecture}.deb"
    assert re.fullmatch(rf"mappings-{re.escape(version)}-linux-[a-z0-9_]+\.tar\.gz", tarball.name), tarball.name
    assert sorted(line.split()[1] for line in sums.read_text().splitlines()) == sorted([tarball.name, deb.name])

    top = tarball.name.removesuffix(".tar.gz")
    with tarfile.open(tarball) as archive:
        files = {member.name.removeprefix(top + "/"): member for member in archive.getmembers() if member.isfile()}
    assert sorted(files) == [
        "bin/mappings", "bin/mappings-lua-worker", "bin/mappings-server", "share/bash-completion/completions/mappings",
        "share/fish/vendor_completions.d/mappings.fish", "share/man/man1/mappings.1",
        "share/zsh/site-functions/_mappings",
    ]
    assert all(files[name].mode == 0o755 for name in files if name.startswith("bin/"))

    control = subprocess.run(["dpkg-deb", "--field", str(deb)], check=True, capture_output=True, text=True).stdout
    fields = dict(line.split(": ", 1) for line in control.splitlines() if ": " in line and not line.startswith(" "))
    assert fields["Package"] == "mappings" and fields["Version"] == version
    depends = {entry.split(" ")[0] for entry in fields["Depends"].split(", ")}
    assert depends == {"libc6", "libgcc-s1", "libstdc++6"}, fields["Depends"]
    assert fields["Recommends"] == "libsqlite3-0" and fields["Suggests"] == "libpq5"

    root = clean_copy("debian-release")
    shutil.copy2(deb, root / "tmp" / deb.name)
    work = root / "home" / "user"
    work.mkdir(parents=True)
    for folder in ["contexts", "scripts"]:
        shutil.copytree(REPOSITORY / folder, work / folder)
    for example in ["twitter/tweet.json", "first-mapping/issues.json", "pipeline/tweets.ndjson"]:
        (work / "Examples" / example).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPOSITORY / "Examples" / example, work / "Examples" / example)

    def inside(command: str, timeout: int = 300) -> subprocess.CompletedProcess:
        return subprocess.run(["chroot", str(root), "/bin/sh", "-c", "cd /home/user && " + command],
                              capture_output=True, timeout=timeout, check=False)

    with mounted_proc(root):
        installed = inside(f"dpkg -i /tmp/{deb.name}")
        assert installed.returncode == 0, installed.stderr
        assert inside("command -v mappings").stdout == b"/usr/bin/mappings\n"
        for path in ["/usr/share/man/man1/mappings.1.gz", "/usr/share/bash-completion/completions/mappings",
                     "/usr/share/zsh/vendor-completions/_mappings", "/usr/share/fish/vendor_completions.d/mappings.fish",
                     "/usr/bin/mappings-lua-worker", "/usr/bin/mappings-server"]:
            assert (root / path.lstrip("/")).is_file(), path
        said = inside("mappings --version")
        assert said.returncode == 0, said.stderr
        assert said.stdout.decode().startswith(f"mappings {version} (commit {commit()}) with Lua 5.4."), said.stdout

        quick = "map --context '$TweetModel' Examples/twitter/tweet.json"
        mapped = inside("mappings " + quick)
        assert mapped.returncode == 0, mapped.stderr
        assert mapped.stdout == readme_output("./tools/mappings " + quick)

        init = "mappings init --from Examples/first-mapping/issues.json --dir first"
        made_project = inside(init)
        assert made_project.returncode == 0, made_project.stderr
        # The README shows init's note (on stderr) after what it wrote (on stdout).
        assert made_project.stdout + made_project.stderr == readme_output(init)
        many = ("mappings map --many --mappings first/contexts --scripts first/scripts --context '$Issue' "
                "Examples/first-mapping/issues.json")
        assert inside(many).stdout == readme_output(many)
        tested = inside("mappings test --mappings first/contexts --scripts first/scripts")
        assert tested.returncode == 0, tested.stdout + tested.stderr
        assert tested.stdout.endswith(b"mappings test: 2 passed, 0 failed\n"), tested.stdout

        stream = ("mappings stream --context '$TweetModel' --to sqlite:tweets.db --create-tables --job tweets "
                  "--rejects-table rejects Examples/pipeline/tweets.ndjson")
        # SQLite's library is recommended, not required: without it, stream --to sqlite says so.
        without = inside(stream)
        assert without.returncode == 2 and b"libsqlite3.so.0" in without.stderr, without.stderr
        library = inside("apt-get update -qq && apt-get install -y -qq --no-install-recommends libsqlite3-0",
                         timeout=900)
        assert library.returncode == 0, library.stderr
        streamed = inside(stream)
        assert streamed.returncode == 1, streamed.stderr
        assert streamed.stderr.endswith(b"read 6, written 3, rejected 3, committed 3\n"), streamed.stderr
    with sqlite3.connect(work / "tweets.db") as database:
        rows = database.execute("SELECT identifier, message, retweets FROM tweet_model ORDER BY identifier").fetchall()
        assert rows == [("1", "First", 2), ("2", "Second", 0), ("6", "Last", 0)]
        assert [line for (line,) in database.execute("SELECT line FROM rejects ORDER BY line")] == [3, 4, 5]
