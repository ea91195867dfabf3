"""Debian's Chromium for the web client's browser tests, installed on first use.

CI runs as root on Debian: `apt-get install -y chromium` is the only download allowed (no
Playwright browser download). Where it cannot be installed, the tests are skipped with why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")


def chromium_executable() -> Path:
    """The path of Debian's chromium, installing the package when it is missing."""
    if CHROMIUM.exists():
        return CHROMIUM
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        pytest.skip(
            "the web client tests need Debian's chromium (apt-get install chromium, as root)"
        )
    result = subprocess.run(
        ["apt-get", "install", "-y", "-q", "chromium"],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )
    if result.returncode != 0 or not CHROMIUM.exists():
        pytest.skip(f"could not install chromium with apt-get:\n{result.stderr[-2000:]}")
    return CHROMIUM
