"""A real PostgreSQL server for the tests: Debian's ``postgresql`` binaries (``initdb`` + ``pg_ctl``) on a free
local port, its data directory and socket in a temporary directory, trust authentication, stopped at the end.

Never mocked and never skipped: without the binaries the tests that need a server fail, naming the package
(``.ci/run`` installs it). As root (CI), the server runs as the ``postgres`` user the package creates,
because ``initdb`` refuses to run as root.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SUPERUSER = "emukit"


def _binary(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    path = found[-1] if found else shutil.which(name)
    if not path:
        raise RuntimeError(f"PostgreSQL's {name} was not found (install Debian's package: apt-get install "
                           "postgresql)")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One running server; :meth:`new_database` gives each test a database of its own."""

    def __init__(self, root: Path, port: int, run_as: list[str]) -> None:
        self.root, self.port, self._run_as = root, port, run_as

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """Create an empty database; returns its URL (plain ``postgresql://``: the store picks psycopg 3)."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user={SUPERUSER} dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self._run_as, *argv], capture_output=True, text=True, timeout=120, check=False)


@contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    root = Path(tempfile.mkdtemp(prefix="emukit-pg-"))
    run_as: list[str] = []
    if os.geteuid() == 0:
        import pwd

        user = pwd.getpwnam("postgres")
        os.chown(root, user.pw_uid, user.pw_gid)
        run_as = ["runuser", "-u", "postgres", "--"]
    server = PostgresServer(root, _free_port(), run_as)
    data, log = root / "data", root / "server.log"
    try:
        done = server.run(initdb, "-D", str(data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", "--no-sync")
        if done.returncode:
            raise RuntimeError(f"initdb failed ({done.returncode}): {done.stderr or done.stdout}")
        options = f"-p {server.port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        done = server.run(pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", "60", "start")
        if done.returncode:
            text = log.read_text(errors="replace") if log.exists() else ""
            raise RuntimeError(f"pg_ctl start failed ({done.returncode}): {done.stderr or done.stdout}\n{text}")
        yield server
    finally:
        if (data / "postmaster.pid").exists():
            server.run(pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)
