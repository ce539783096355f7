"""The minimal Debian root the portable binaries and the release packages are tried in: made
once by debootstrap under .build (no Swift, no Lua), and copied clean for a test that installs
into it."""

import contextlib
import os
import pathlib
import shutil
import subprocess
from typing import Iterator

import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]
ROOT = REPOSITORY / ".build" / "debian-minbase"

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 and os.environ.get("CI") != "true", reason="chroot needs root (CI runs it)"
)


def debian_root() -> pathlib.Path:
    """A Debian bookworm minbase root, made once and kept under .build."""
    if not (ROOT / "bin" / "sh").exists():
        shutil.rmtree(ROOT, ignore_errors=True)
        subprocess.run(
            ["debootstrap", "--variant=minbase", "bookworm", str(ROOT), "http://deb.debian.org/debian"],
            check=True, capture_output=True, timeout=1200,
        )
    return ROOT


def clean_copy(name: str) -> pathlib.Path:
    """A copy of the minbase root at .build/NAME, made again each time: packages installed there
    leave the shared one as debootstrap made it."""
    copy = REPOSITORY / ".build" / name
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-a", str(debian_root()), str(copy)], check=True)
    return copy


@contextlib.contextmanager
def mounted_proc(root: pathlib.Path) -> Iterator[None]:
    """/proc mounted in `root` while the block runs (the binaries read /proc/self)."""
    subprocess.run(["mount", "-t", "proc", "proc", str(root / "proc")], check=True)
    try:
        yield
    finally:
        subprocess.run(["umount", str(root / "proc")], check=False)
