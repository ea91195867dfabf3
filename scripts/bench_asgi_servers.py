"""Compare ASGI servers for teamchat: uvicorn (httptools + uvloop) vs granian.

Needs `wrk` (Debian package) and, for the granian run, `pip install granian`.
Usage: python scripts/bench_asgi_servers.py [--secs 5] [--connections 32]
Prints requests/second and latency for an unauthenticated and an authenticated GET.
"""

from __future__ import annotations

import argparse
import base64
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.support.server import free_port  # noqa: E402


def granian_app():  # type: ignore[no-untyped-def]
    """Factory for granian: the same Litestar app `teamchat serve` runs."""
    from teamchat.app import create_app
    from teamchat.config import Settings

    return create_app(Settings.from_env())


def wait_up(url: str) -> None:
    for _ in range(200):
        try:
            if httpx.get(f"{url}/api/v1/server_settings", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"server at {url} did not start")


def wrk(url: str, secs: int, connections: int, header: str | None) -> tuple[float, str]:
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{secs}s", url]
    if header:
        cmd[1:1] = ["-H", header]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    latency = re.search(r"Latency\s+(\S+)", out).group(1)  # type: ignore[union-attr]
    return rps, latency


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--secs", type=int, default=5)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    tmp = Path(tempfile.mkdtemp())
    db = tmp / "bench.db"
    env = {
        **os.environ,
        "TEAMCHAT_DB": str(db),
        "TEAMCHAT_API_RATE_LIMIT": "0",
        "TEAMCHAT_LOG_LEVEL": "warning",
        "PYTHONPATH": str(ROOT),
    }
    created = subprocess.run(
        [
            sys.executable,
            "-m",
            "teamchat",
            "admin",
            "create-realm",
            "--name",
            "Bench",
            "--owner-email",
            "bench@example.com",
            "--owner-name",
            "Bench",
            "--owner-password",
            "bench-pass",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    key = created.stdout.split("api_key=")[1].strip()
    auth = "Authorization: Basic " + base64.b64encode(f"bench@example.com:{key}".encode()).decode()
    servers = {
        "uvicorn": lambda port: [sys.executable, "-m", "teamchat", "serve", "--port", str(port)],
        "granian": lambda port: [
            sys.executable,
            "-m",
            "granian",
            "--interface",
            "asgi",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
            "--loop",
            "uvloop",
            "--factory",
            "scripts.bench_asgi_servers:granian_app",
        ],
    }
    for name, command in servers.items():
        port = free_port()
        proc = subprocess.Popen(
            command(port), env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            url = f"http://127.0.0.1:{port}"
            wait_up(url)
            for label, path, header in (
                ("server_settings", "/api/v1/server_settings", None),
                ("users/me (auth)", "/api/v1/users/me", auth),
            ):
                rps, latency = wrk(url + path, args.secs, args.connections, header)
                print(f"{name:8} {label:18} {rps:9.0f} req/s  avg latency {latency}")
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
