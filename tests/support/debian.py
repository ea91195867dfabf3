"""Debian packages the tests need (Chromium, PostgreSQL, nginx, Node.js), installed on first
use with apt-get when the tests run as root on Debian (CI), one install at a time (test
workers run side by side and dpkg takes one at a time). Where a package cannot be installed,
the test is skipped, saying why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

import pytest

from tests.support.clients import _locked


def apt_install(packages: list[str], present: Callable[[], bool], purpose: str) -> None:
    """Install `packages` unless `present()`; skip the calling test if that cannot be done."""
    if present():
        return
    with _locked("apt-get"):
        if present():  # another test worker installed it meanwhile
            return
        wanted = " ".join(packages)
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            pytest.skip(f"{purpose} need Debian's {wanted} (apt-get install {wanted}, as root)")
        result = subprocess.run(
            ["apt-get", "install", "-y", "-q", *packages],
            capture_output=True,
            text=True,
            timeout=900,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        if result.returncode != 0 or not present():
            pytest.skip(f"could not install {wanted} with apt-get:\n{result.stderr[-2000:]}")
