"""HAProxy for the tests: Debian's `haproxy` package (installed when missing, as the browser
tests install Chromium), run in the foreground in a temporary directory on a free loopback
port, with the sections `teamchat proxy-config haproxy` printed loaded after a minimal global
section of our own. Skipped, with the reason, only where the package cannot be installed.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support.debian import apt_install
from tests.support.server import free_port

GLOBAL_SECTION = "global\n    maxconn 1000\n"


def haproxy_executable() -> Path:
    """Debian's haproxy, installing the package if needed."""

    def found() -> str | None:
        return shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/bin")

    apt_install(["haproxy"], lambda: found() is not None, "the HAProxy tests")
    path = found()
    assert path is not None
    return Path(path)


class HaproxyProcess:
    """One foreground HAProxy loading `sections` (whose `bind` is 127.0.0.1:`self.port`)."""

    def __init__(self) -> None:
        self.executable = haproxy_executable()
        self.port = free_port()
        self.directory = Path(tempfile.mkdtemp(prefix="teamchat-haproxy-"))
        self.process: subprocess.Popen[str] | None = None
        self.log_path = self.directory / "haproxy.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, sections: str, timeout_secs: float = 20.0) -> HaproxyProcess:
        (self.directory / "global.cfg").write_text(GLOBAL_SECTION)
        (self.directory / "teamchat.cfg").write_text(sections)
        command = [str(self.executable), "-f", "global.cfg", "-f", "teamchat.cfg"]
        checked = subprocess.run(
            [*command, "-c"], capture_output=True, text=True, timeout=30, cwd=self.directory
        )
        if checked.returncode != 0:
            refused = f"{checked.stdout}{checked.stderr}"
            raise AssertionError(f"haproxy refuses the configuration:\n{refused}\n{sections}")
        self._log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [*command, "-db"], stdin=subprocess.DEVNULL, stdout=self._log,
            stderr=subprocess.STDOUT, text=True, cwd=self.directory,
        )  # fmt: skip
        deadline = time.monotonic() + timeout_secs
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"haproxy exited early:\n{self.log_path.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"haproxy did not start:\n{self.log_path.read_text()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None:
            self._log.close()
        shutil.rmtree(self.directory, ignore_errors=True)
