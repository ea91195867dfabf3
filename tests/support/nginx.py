"""nginx for the tests: Debian's `nginx` package (installed when missing, as the browser tests
install Chromium), run in the foreground in a temporary directory on a free loopback port,
with a site configuration given as text (e.g. what `teamchat proxy-config nginx` printed).

The site is included verbatim inside a minimal `http { }` of our own that keeps every path
(pid, logs, temporary bodies) in the directory. As root (CI), the workers stay root: the
package's default account could not write to a private temporary directory. Skipped, with
the reason, only where the package cannot be installed.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support.debian import apt_install
from tests.support.server import free_port

# The access log names the process (upstream address) that answered each request.
MAIN_CONFIG = """\
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;
{user}
events {{
    worker_connections 1024;
}}
http {{
    default_type application/octet-stream;
    log_format routed '$request_method $uri $arg_queue_id -> $upstream_addr $status';
    access_log {dir}/access.log routed;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {dir}/site.conf;
}}
"""


def nginx_executable() -> Path:
    """Debian's nginx, installing the package if needed."""

    def found() -> str | None:
        return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/bin")

    apt_install(["nginx"], lambda: found() is not None, "the reverse proxy tests")
    path = found()
    assert path is not None
    return Path(path)


class NginxProcess:
    """One foreground nginx serving `site` (an nginx site whose `listen` is `self.port`)."""

    def __init__(self) -> None:
        self.executable = nginx_executable()
        self.port = free_port()
        self.directory = Path(tempfile.mkdtemp(prefix="teamchat-nginx-"))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, site: str, timeout_secs: float = 20.0) -> NginxProcess:
        user = "user root root;" if os.geteuid() == 0 else ""
        (self.directory / "site.conf").write_text(site)
        (self.directory / "nginx.conf").write_text(
            MAIN_CONFIG.format(dir=self.directory, user=user)
        )
        command = [str(self.executable), "-p", str(self.directory), "-c", "nginx.conf"]
        command += ["-e", str(self.directory / "error.log")]
        checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
        if checked.returncode != 0:
            raise AssertionError(f"nginx refuses the configuration:\n{checked.stderr}\n{site}")
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + timeout_secs
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"nginx exited early:\n{self.error_log()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"nginx did not start:\n{self.error_log()}")

    def error_log(self) -> str:
        path = self.directory / "error.log"
        return path.read_text() if path.exists() else ""

    def access_log(self) -> list[str]:
        path = self.directory / "access.log"
        return path.read_text().splitlines() if path.exists() else []

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # nginx's fast shutdown
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None and self.process.stderr is not None:
            self.process.stderr.close()
        shutil.rmtree(self.directory, ignore_errors=True)
