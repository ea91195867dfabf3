"""The web client's pure JavaScript (narrow <-> URL, unread bookkeeping, message grouping),
unit-tested with Node's built-in runner when `node` exists."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def test_web_client_javascript_units() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the web client's JavaScript unit tests need it")
    result = subprocess.run(
        # The client's modules are plain .js ES modules outside any package.json.
        [node, "--experimental-detect-module", "--test", str(HERE / "web_js")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TZ": "UTC"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout and "# pass 0" not in result.stdout
