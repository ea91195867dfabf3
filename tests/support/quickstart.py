"""The README's Quick start as a newcomer runs it: the wheel that `pip install .` builds, installed
into a fresh virtualenv, and that virtualenv's own `teamchat serve` on a fresh database.

The fixtures (registered in tests/conftest.py, so any test may ask for them):

- `built_wheel` (session): the wheel built from the files git tracks, as `pip install .` builds
  it (setuptools without build isolation, so no download); built once per test session.
- `installed_teamchat` (session): an `InstalledTeamchat`, a fresh virtualenv holding that wheel;
  `.teamchat` is its console script. teamchat is installed with `--no-deps`; its dependencies
  come from the test virtualenv's site-packages through a `.pth` line (added after the new
  virtualenv's own site-packages, so `import teamchat` is the wheel's, never the checkout's).
- `quickstart_env` (module): extra environment variables for the server; none by default.
  A test module overrides it to configure the server (e.g. `TEAMCHAT_SMTP_HOST`/`_PORT` of an
  SMTP server the module started).
- `quickstart_server` (module): a `QuickstartServer`, the installed
  `teamchat serve --db <tmp>/teamchat.db --port <free port>` started in a clean environment (no
  `TEAMCHAT_*` variable but `quickstart_env`'s, so the real rate limits apply), with the owner's
  email and password read from what it printed (`.owner_email`, `.owner_password`), `.url`,
  `.zuliprc()`, `.cli(...)` to run the installed `teamchat --db <that database> ...`, and
  `.restart()`. One fresh organization per test module.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
# What a build needs when the tests do not run in a git checkout.
BUILD_INPUTS = ("pyproject.toml", "MANIFEST.in", "README.md", "LICENSE", "teamchat")
CACHE_PARTS = {"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}


def is_cache(path: str) -> bool:
    return bool(CACHE_PARTS & set(Path(path).parts)) or path.endswith((".pyc", ".pyo"))


def source_files(root: Path = ROOT) -> list[str]:
    """The checkout's files, relative to `root`: what git tracks (and still exists), or
    outside a git checkout every non-cache file of what a build reads."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=False, timeout=60
    )
    if listed.returncode == 0 and listed.stdout:
        names = [name for name in listed.stdout.decode().split("\0") if name]
    else:
        names = []
        for top in BUILD_INPUTS:
            path = root / top
            files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
            names += [str(p.relative_to(root)) for p in files]
    return sorted(n for n in names if (root / n).is_file() and not is_cache(n))


def package_data_files(root: Path = ROOT) -> list[str]:
    """Every file under teamchat/ that is not Python source or a cache: what the wheel must
    carry besides the modules."""
    return [n for n in source_files(root) if n.startswith("teamchat/") and not n.endswith(".py")]


def build_wheel(dest: Path, root: Path = ROOT) -> Path:
    """Build the wheel of a clean copy of the checkout's files into `dest`; its path."""
    src = dest / "src"
    for name in source_files(root):
        target = src / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)
    dist = dest / "dist"
    pip_wheel = ["pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist)]
    result = subprocess.run(
        [sys.executable, "-m", *pip_wheel, str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"building the wheel failed:\n{result.stdout}{result.stderr}"
    (wheel,) = dist.glob("teamchat-*.whl")
    return wheel


class InstalledTeamchat:
    """A fresh virtualenv with the built wheel installed."""

    def __init__(self, venv: Path, wheel: Path) -> None:
        self.venv = venv
        self.wheel = wheel
        self.python = venv / "bin" / "python"
        self.teamchat = venv / "bin" / "teamchat"

    @classmethod
    def create(cls, venv: Path, wheel: Path) -> InstalledTeamchat:
        run = lambda *args: subprocess.run(  # noqa: E731
            args, capture_output=True, text=True, timeout=300, check=True
        )
        run(sys.executable, "-m", "venv", "--without-pip", str(venv))
        installed = cls(venv, wheel)
        purelib = run(
            str(installed.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        ).stdout.strip()
        # The dependencies, from the test virtualenv (its editable teamchat hook is a .pth file
        # there, which a path line does not run).
        Path(purelib, "teamchat_test_dependencies.pth").write_text(
            sysconfig.get_paths()["purelib"] + "\n"
        )
        return installed

    def install_wheel(self) -> None:
        install = ["install", "-q", "--no-deps", "--no-index", str(self.wheel)]
        subprocess.run(
            [sys.executable, "-m", "pip", "--python", str(self.python), *install],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )

    def imported_from(self) -> Path:
        """Where the virtualenv's `import teamchat` finds the package."""
        found = subprocess.run(
            [str(self.python), "-c", "import teamchat; print(teamchat.__file__)"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
            cwd=self.venv,
            env=clean_env(),
        )
        return Path(found.stdout.strip()).parent


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a newcomer's shell: none of the test suite's TEAMCHAT_* settings."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("TEAMCHAT_") and k != "PYTHONPATH"
    }
    return {**env, **(extra or {})}


class QuickstartServer(ServerProcess):
    """The installed `teamchat serve --db DIR/teamchat.db --port PORT`, as the README says."""

    def __init__(self, directory: Path, installed: InstalledTeamchat, env: dict[str, str]) -> None:
        db = directory / "teamchat.db"
        super().__init__(directory, command=["serve", "--db", str(db)])
        self.program = [str(installed.teamchat)]
        self.env = clean_env(env)
        self.installed = installed

    def printed(self, label: str) -> str:
        """A value the first start printed, e.g. `printed("owner password")`."""
        match = re.search(rf"^\s*{re.escape(label)}:\s*(\S+)\s*$", self.first_output, re.M)
        assert match, f"`teamchat serve` printed no {label}:\n{self.first_output}"
        return match.group(1)

    @property
    def owner_email(self) -> str:
        return self.printed("owner email")

    @property
    def owner_password(self) -> str:
        return self.printed("owner password")

    @property
    def zuliprc_path(self) -> Path:
        return Path(self.printed("zuliprc"))

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run the installed `teamchat --db <this database> ARGS...`."""
        result = subprocess.run(
            [str(self.installed.teamchat), "--db", str(self.db), *args],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.directory,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"teamchat {' '.join(args)}:\n{result.stdout}{result.stderr}")
        return result


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def installed_teamchat(
    built_wheel: Path, tmp_path_factory: pytest.TempPathFactory
) -> InstalledTeamchat:
    installed = InstalledTeamchat.create(
        tmp_path_factory.mktemp("quickstart") / "venv", built_wheel
    )
    installed.install_wheel()
    where = installed.imported_from()
    assert where.is_relative_to(installed.venv), f"teamchat imported from {where}"
    return installed


@pytest.fixture(scope="module")
def quickstart_env() -> dict[str, str]:
    return {}


@pytest.fixture(scope="module")
def quickstart_server(
    installed_teamchat: InstalledTeamchat,
    quickstart_env: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[QuickstartServer]:
    directory = tmp_path_factory.mktemp("first-start")
    proc = QuickstartServer(directory, installed_teamchat, quickstart_env).start(timeout_secs=60)
    yield proc
    proc.stop()
