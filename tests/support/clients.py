"""Real Zulip clients for the compatibility tests, installed on first use.

zulip-terminal (PyPI `zulip-term` 0.7.0 declares Python < 3.11 but runs on 3.11, so it is
installed with --ignore-requires-python into its own virtualenv), zulip_bots and
zulip_botserver (own virtualenvs, so their pins never touch ours) and zulip-js (npm) go under
`.cache/clients/` in the repository; later runs reuse them.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "clients"
ZULIP_TERM_VERSION = "0.7.0"
ZULIP_JS_VERSION = "2.0.9"
ZULIP_BOTS_VERSION = "0.9.1"


@contextmanager
def _locked(name: str) -> Iterator[None]:
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{name}.lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _run(args: list[str], cwd: Path | None = None) -> None:
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(
            f"{' '.join(args)} failed:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        )


def zulip_term() -> Path:
    """The `zulip-term` executable, installing zulip-term into its own venv if needed."""
    venv = CACHE / f"zulip-term-{ZULIP_TERM_VERSION}"
    executable = venv / "bin" / "zulip-term"
    with _locked("zulip-term"):
        if not executable.exists():
            shutil.rmtree(venv, ignore_errors=True)
            _run([sys.executable, "-m", "venv", str(venv)])
            _run(
                [
                    str(venv / "bin" / "pip"),
                    "install",
                    "-q",
                    "--ignore-requires-python",
                    f"zulip-term=={ZULIP_TERM_VERSION}",
                ]
            )
    return executable


def _venv_tool(name: str, executable: str, packages: list[str]) -> Path:
    """`executable` from a virtualenv of its own under the cache, made on first use."""
    venv = CACHE / name
    path = venv / "bin" / executable
    with _locked(name.rsplit("-", 1)[0]):
        if not path.exists():
            shutil.rmtree(venv, ignore_errors=True)
            _run([sys.executable, "-m", "venv", str(venv)])
            _run([str(venv / "bin" / "pip"), "install", "-q", *packages])
    return path


def zulip_run_bot() -> Path:
    """The `zulip-run-bot` executable, installing zulip_bots into its own venv if needed."""
    return _venv_tool(
        f"zulip-bots-{ZULIP_BOTS_VERSION}", "zulip-run-bot", [f"zulip_bots=={ZULIP_BOTS_VERSION}"]
    )


def zulip_botserver() -> Path:
    """The `zulip-botserver` executable (zulip_botserver and its Flask, in their own venv)."""
    return _venv_tool(
        f"zulip-botserver-{ZULIP_BOTS_VERSION}",
        "zulip-botserver",
        [f"zulip_botserver=={ZULIP_BOTS_VERSION}", f"zulip_bots=={ZULIP_BOTS_VERSION}"],
    )


def zulip_js() -> Path:
    """A directory whose node_modules holds zulip-js, installing it if needed."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed for the zulip-js tests")
    folder = CACHE / f"zulip-js-{ZULIP_JS_VERSION}"
    with _locked("zulip-js"):
        if not (folder / "node_modules" / "zulip-js").exists():
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "package.json").write_text(
                '{"name": "teamchat-client-tests", "private": true}'
            )
            _run(
                ["npm", "install", "--no-audit", "--no-fund", f"zulip-js@{ZULIP_JS_VERSION}"],
                cwd=folder,
            )
    return folder


def run_node(folder: Path, script: str, env: dict[str, str], timeout: float = 60) -> str:
    """Run a Node.js script with zulip-js resolvable; return its stdout (fail on exit != 0)."""
    path = folder / "script.cjs"
    path.write_text(script)
    result = subprocess.run(
        ["node", str(path)], cwd=folder, capture_output=True, text=True, timeout=timeout, env=env
    )
    assert result.returncode == 0, f"node failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout
