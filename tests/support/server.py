"""Start a real `teamchat serve` process on a free loopback port, for end-to-end tests."""

from __future__ import annotations

import configparser
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

# Fast heartbeats and no API rate limit, unless a test asks otherwise.
TEST_ENV = {
    "TEAMCHAT_HEARTBEAT_SECS": "2",
    "TEAMCHAT_HEARTBEAT_JITTER_SECS": "0",
    "TEAMCHAT_API_RATE_LIMIT": "0",
    # Every test logs in from 127.0.0.1: tests of the per-IP limit start their own server.
    "TEAMCHAT_LOGIN_IP_RATE_LIMIT": "0",
    "TEAMCHAT_SCHEDULER_INTERVAL_SECS": "0.2",
    "TEAMCHAT_LOG_LEVEL": "info",
    # Tests reach their own listeners on 127.0.0.1 (webhook services, pages, the push service);
    # the tests of the address guard start servers without it.
    "TEAMCHAT_OUTBOUND_ALLOW_PRIVATE": "1",
}


# Each test worker hands out ports from a range of its own, below the kernel's ephemeral
# range (32768 and up on Linux). A port the kernel picks for `bind(0)` is free only until
# someone else takes it: another worker's server, or any outgoing connection. Between this
# answer and the server's own bind, a second worker could bind the same port, and the test
# would then talk to that worker's server ("Invalid API key").
_PORTS_PER_WORKER = 2000
_FIRST_PORT = 15000
_next_port: list[int] = []


def _worker_range() -> range:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", ...; "" without xdist
    n = int(worker[2:]) + 1 if worker[2:].isdigit() else 0
    low = _FIRST_PORT + _PORTS_PER_WORKER * (n % 8)
    return range(low, low + _PORTS_PER_WORKER)


def free_port() -> int:
    """A loopback port nobody listens on, and that no other test worker will hand out."""
    ports = _worker_range()
    if not _next_port:  # start where this process's pid says: a child pytest starts elsewhere
        _next_port.append(os.getpid() % len(ports))
    for _ in range(len(ports)):
        port = ports[_next_port[0] % len(ports)]
        _next_port[0] += 1
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use (or lingering): the next one
            return port
    raise AssertionError(f"no free port in {ports}")


def cli(
    db: Path | str,
    *args: str,
    env: dict[str, str] | None = None,
    check: bool = True,
    input_text: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `teamchat --db DB ARGS...` (DB: a file or a postgresql:// URL) and return the
    finished process."""
    result = subprocess.run(
        [sys.executable, "-m", "teamchat", "--db", str(db), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        input=input_text,
        stdin=None if input_text is not None else subprocess.DEVNULL,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"teamchat {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


class ServerProcess:
    """One `teamchat serve` on 127.0.0.1; `owner_email`/`owner_key` come from its zuliprc."""

    def __init__(
        self,
        directory: Path,
        env: dict[str, str] | None = None,
        command: list[str] | None = None,
        program: list[str] | None = None,
        database_url: str | None = None,
    ) -> None:
        self.directory = directory
        # What runs as `teamchat`: this interpreter's package, or an installed console script.
        self.program = program or [sys.executable, "-m", "teamchat"]
        # What `--db` names: the file, or a postgresql:// URL (see tests/support/postgres.py).
        self.db: Path | str = database_url or directory / "teamchat.db"
        # The arguments after `teamchat` (`--port` is added): by default, serve self.db.
        self.command = command or ["--db", str(self.db), "serve"]
        self.env = {**os.environ, **TEST_ENV, **(env or {})}
        self.port = 0
        self.process: subprocess.Popen[str] | None = None
        self.log_path = directory / "server.log"
        self.first_output = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_secs: float = 30.0, port: int | None = None) -> ServerProcess:
        """Start serving on `port` (a free one when None); `restart()` keeps the port."""
        self.port = port or free_port()
        self._log_file = self.log_path.open("a")
        self.process = subprocess.Popen(
            [*self.program, *self.command, "--port", str(self.port)],
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=self.env,
            text=True,
            cwd=self.directory,
        )
        deadline = time.monotonic() + timeout_secs
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"server exited early:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}/api/v1/server_settings", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        else:
            raise AssertionError(f"server did not start:\n{self.log()}")
        if not self.first_output:
            self.first_output = self.log()
        return self

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""

    def zuliprc(self) -> dict[str, str]:
        parser = configparser.ConfigParser()
        parser.read(self.directory / "zuliprc")
        return dict(parser["api"])

    @property
    def owner_email(self) -> str:
        return self.zuliprc()["email"]

    @property
    def owner_key(self) -> str:
        return self.zuliprc()["key"]

    def stop(self, sig: int = signal.SIGTERM, timeout_secs: float = 15.0) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout_secs)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError(f"server ignored signal {sig}:\n{self.log()}") from None
        self._log_file.close()
        return int(self.process.returncode)

    def restart(self) -> ServerProcess:
        """Stop and start again on the same port (event queues are lost, as in production)."""
        self.stop()
        return self.start(port=self.port)
