"""A throwaway PostgreSQL cluster on loopback for the tests (docs/testing.md).

Runs as the ``postgres`` user (PostgreSQL refuses root), in a world-traversable temp dir,
with fsync off; about 1 s to start, 0.1 s to stop.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.rig.net import free_ports

BIN = Path("/usr/lib/postgresql/15/bin")


def find_postgres() -> Path | None:
    if (BIN / "pg_ctl").exists():
        return BIN
    found = shutil.which("pg_ctl")
    return Path(found).parent if found else None


class Postgres:
    def __init__(self) -> None:
        self.bin = find_postgres()
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed: apt-get install postgresql")
        self.root = Path(tempfile.mkdtemp(prefix="pbp-pg-", dir="/tmp"))
        os.chmod(self.root, 0o755)
        self.data = self.root / "data"
        self.port = free_ports(1)[0]
        self.user = "test"

    def _as_postgres(self, *args: str) -> None:
        cmd = list(args)
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=60)

    def start(self) -> "Postgres":
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        self._as_postgres(str(self.bin / "initdb"), "-D", str(self.data), "-U", self.user, "--auth=trust",
                          "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-l", str(self.root / "log"),
                          "-o", f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off",
                          "start")
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        self._as_postgres(str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user, name)
        return self.url(name)

    def pg_ctl(self, action: str, *options: str) -> None:
        """``pg_ctl stop``/``start`` on the same data and port (an outage: the data stays)."""
        extra = ["-o", f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off"] \
            if action == "start" else []
        self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-l", str(self.root / "log"),
                          *extra, *options, action)

    def terminate_backends(self, database: str) -> int:
        """``pg_terminate_backend`` on every session of ``database`` (what an admin or a
        failover does to a client); returns how many it ended."""
        out = subprocess.run(
            [str(self.bin / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user, "-d", "postgres",
             "-Atc", f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '{database}'"],
            check=True, capture_output=True, text=True, timeout=30)
        return int(out.stdout.strip() or 0)

    def stop(self) -> None:
        try:
            self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
