"""The code style gates from STYLE.md: ruff (lint + format) and mypy --strict on teamchat/."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(
    shutil.which("ruff") is None and not (Path(sys.executable).parent / "ruff").exists(),
    reason="ruff is not installed (pip install -e '.[test]')",
)
def test_ruff_lint_and_format() -> None:
    ruff = (
        str(Path(sys.executable).parent / "ruff")
        if (Path(sys.executable).parent / "ruff").exists()
        else "ruff"
    )
    lint = run(ruff, "check", "teamchat", "tests", "scripts")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = run(ruff, "format", "--check", "teamchat", "tests", "scripts")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy_strict() -> None:
    pytest.importorskip("mypy")
    result = run(sys.executable, "-m", "mypy", "teamchat")
    assert result.returncode == 0, result.stdout + result.stderr
