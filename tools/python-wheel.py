"""Writes the `mappings` wheel (PEP 427) of a package folder: python-wheel.py WORK OUT TAG.

WORK holds the package (WORK/mappings); the wheel goes to OUT, named for TAG
(cp39-abi3-manylinux_2_36_x86_64); its path is printed. A wheel is a zip file with the
package and a .dist-info folder (METADATA, WHEEL, RECORD), which this writes by hand: the
native module is built already (tools/build-python-wheel), so no build backend is needed."""

import base64
import hashlib
import os
import sys
import zipfile

# The release, as the tool's: the repository's VERSION file (mappings.__version__ says it too).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "VERSION")) as _file:
    VERSION = _file.read().strip()


def digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main() -> None:
    work, out, tag = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):
        if old.endswith(".whl"):
            os.remove(os.path.join(out, old))
    info = f"mappings-{VERSION}.dist-info"
    path = os.path.join(out, f"mappings-{VERSION}-{tag}.whl")
    metadata = "\n".join([
        "Metadata-Version: 2.1",
        "Name: mappings",
        f"Version: {VERSION}",
        "Summary: Declarative JSON-to-object mapping by .mappings files: typed values and Arrow tables.",
        "Requires-Python: >=3.9",
        "Provides-Extra: arrow",
        "Requires-Dist: pyarrow>=12; extra == \"arrow\"",
        "",
        "The `mappings` engine (Swift, with its Lua sandbox) as a Python module: docs/python.md.",
        "",
    ])
    wheel = "\n".join([
        "Wheel-Version: 1.0",
        "Generator: mappings tools/python-wheel.py",
        "Root-Is-Purelib: false",
        f"Tag: {tag}",
        "",
    ])
    records = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(os.listdir(os.path.join(work, "mappings"))):
            full = os.path.join(work, "mappings", name)
            with open(full, "rb") as file:
                data = file.read()
            entry = zipfile.ZipInfo(f"mappings/{name}", date_time=(2026, 1, 1, 0, 0, 0))
            entry.external_attr = (0o755 if name.endswith((".so", ".so.0")) else 0o644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
            records.append(f"mappings/{name},{digest(data)},{len(data)}")
        for name, text in (("METADATA", metadata), ("WHEEL", wheel), ("top_level.txt", "mappings\n")):
            data = text.encode()
            archive.writestr(f"{info}/{name}", data)
            records.append(f"{info}/{name},{digest(data)},{len(data)}")
        records.append(f"{info}/RECORD,,")
        archive.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    print(path)


if __name__ == "__main__":
    main()
