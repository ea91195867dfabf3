"""A PostgreSQL server for the tests: Debian's `postgresql` package (installed when missing, as
the browser tests install Chromium), one cluster per test session in a temporary directory,
listening on a free loopback port.

`postgres` (a session fixture) starts it; `postgres.new_database()` gives each caller an empty
database of its own and its `postgresql://` URL. Skipped, with the reason, only where the
package cannot be installed. PostgreSQL refuses to run as root: when the tests run as root
(CI), the cluster belongs to the package's `postgres` account.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.debian import apt_install
from tests.support.server import free_port

USER = "teamchat"
_numbers = itertools.count(1)


def postgres_bin() -> Path:
    """The directory of Debian's PostgreSQL server programs, installing the package if needed."""
    apt_install(["postgresql"], lambda: _find_bin() is not None, "the PostgreSQL tests")
    found = _find_bin()
    assert found is not None
    return found


def _find_bin() -> Path | None:
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), reverse=True)
    return Path(candidates[0]).parent if candidates else None


class PostgresServer:
    """One cluster in a temporary directory; `stop()` removes it."""

    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.port = free_port()
        # Not under pytest's tmp directory: as root, that is closed to the `postgres` account.
        self.directory = Path(tempfile.mkdtemp(prefix="teamchat-pg-"))
        self.data = self.directory / "data"
        root = os.geteuid() == 0
        self.owner: pwd.struct_passwd | None = pwd.getpwnam("postgres") if root else None
        if self.owner is not None:
            os.chown(self.directory, self.owner.pw_uid, self.owner.pw_gid)

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = list(args)
        if self.owner is not None:
            command = ["setpriv", f"--reuid={self.owner.pw_uid}", f"--regid={self.owner.pw_gid}",
                       "--init-groups", *command]  # fmt: skip
        return subprocess.run(
            command, capture_output=True, text=True, timeout=120, cwd=self.directory, check=True
        )

    def start(self) -> PostgresServer:
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, "--auth=trust",
            "-E", "UTF8", "--locale=C.UTF-8",
        )  # fmt: skip
        # Tests may lose data on a crash of the machine (fsync off); the servers under test
        # still COMMIT as they would in production.
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.directory / "log"),
            "-o", options, "-w", "-t", "60", "start",
        )  # fmt: skip
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        result = self._run(
            str(self.bin / "psql"),
            "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", self.url(database), "-c", sql,
        )  # fmt: skip
        return result.stdout

    def new_database(self, prefix: str = "test") -> str:
        """An empty database of the caller's own; its URL."""
        name = f"{prefix}_{os.getpid()}_{next(_numbers)}_{int(time.time() * 1000) % 100000}"
        self.psql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    server = PostgresServer().start()
    yield server
    server.stop()
