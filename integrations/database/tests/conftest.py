"""Fixtures of the database destinations' tests: the tool under test (MAPPINGS_BINARY, else
the debug build), a PostgreSQL cluster of the session's own (tools/postgres-server: initdb in a
temporary folder, 127.0.0.1 at a free port, stopped at the end), a new database per test, and
generated order records (some of them bad)."""
import json
import os
import random
import subprocess
import uuid

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CONTEXTS = os.path.join(HERE, "fixtures", "contexts")
SERVER = os.path.join(ROOT, "tools", "postgres-server")


def binary():
    return os.environ.get("MAPPINGS_BINARY") or os.path.join(ROOT, ".build", "debug", "mappings")


def mappings(*arguments, check=None, timeout=300, **options):
    """Runs the tool; `check` is the exit status expected."""
    done = subprocess.run([binary(), *arguments], capture_output=True, text=True, timeout=timeout, **options)
    if check is not None:
        assert done.returncode == check, f"exit {done.returncode}\n{done.stderr}"
    return done


class Cluster:
    def __init__(self, folder):
        self.folder = str(folder)
        self.uri = None

    def start(self):
        self.uri = subprocess.run([SERVER, "start", self.folder], check=True, capture_output=True,
                                  text=True).stdout.strip()
        return self.uri

    def stop(self):
        subprocess.run([SERVER, "stop", self.folder], check=False, capture_output=True)

    def remove(self):
        subprocess.run([SERVER, "remove", self.folder], check=False, capture_output=True)

    def restart(self):
        """Starts the stopped cluster again, on the port it had."""
        subprocess.run([SERVER, "restart", self.folder], check=True, capture_output=True, text=True)

    def database(self):
        """A new, empty database: its URI."""
        import psycopg
        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.uri, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.uri.replace("/postgres?", f"/{name}?")


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    cluster = Cluster(tmp_path_factory.mktemp("postgres"))
    cluster.start()
    yield cluster
    cluster.remove()


@pytest.fixture
def postgres(cluster):
    return cluster.database()


def order(rng, number, identity=None):
    """One order payload: `identity` (default `number`) as its id."""
    lines = [{"sku": f"SKU-{rng.randrange(1000)}", "qty": rng.randrange(1, 9),
              "price": f"{rng.randrange(0, 10**6)}.{rng.randrange(100):02d}"} for _ in range(rng.randrange(0, 4))]
    payload = {
        "id": number if identity is None else identity,
        "number": f"N-{number}\t\"quoted\"\\ " + rng.choice(["é", "☃", "😀", "plain", "line\nbreak"]),
        "total": rng.choice(["12.50", "0.10", "12345678901234567890.123456789012345678", "1E+3", "7", "0"]),
        "paid": rng.random() < 0.5,
        "placed_at": rng.choice(["2024-02-29T12:00:00Z", "2024-02-29T12:00:00.123456Z", "1999-12-31T23:59:59.5Z",
                                 "2024-06-01T08:30:00+02:00"]),
        "customer": {"id": rng.randrange(100), "name": rng.choice(["Ann", "Bo", "Zoë"])},
        "lines": lines,
    }
    if rng.random() < 0.5:
        payload["weight"] = rng.choice([0.1, 0.0, 1e300, 5e-324, 2.5, 3, -7.25])
    if rng.random() < 0.3:
        payload["note"] = rng.choice(["", "a note", "tab\there", "back\\slash"])
    if rng.random() < 0.3:
        payload["extra"] = rng.choice([{"b": 1, "a": [True, None, 1.50]}, [1, "two"], "text", 12345678901234567890])
    if rng.random() < 0.3:
        payload["counts"] = {"x": rng.randrange(10), "y": rng.randrange(10)}
    return payload


def orders(path, count, seed, bad_every=0, identities=None):
    """Writes `count` NDJSON orders to `path` (every `bad_every`th line not JSON, or missing its
    number); ids from `identities(number)` when given."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        for number in range(1, count + 1):
            if bad_every and number % bad_every == 0:
                out.write("{not json\n" if number % (2 * bad_every) == 0 else json.dumps({"id": number}) + "\n")
                continue
            identity = identities(number) if identities else None
            out.write(json.dumps(order(rng, number, identity), ensure_ascii=False) + "\n")
    return path
