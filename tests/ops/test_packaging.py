"""What `pip install .` installs is what the tests test: every file of the package is in the
wheel, and the installed console script is the wheel's."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.support.quickstart import InstalledTeamchat, package_data_files, source_files


# Building the wheel and a virtualenv takes a while on a busy machine (once per session).
@pytest.mark.timeout(600)
def test_the_wheel_holds_every_file_of_the_package(built_wheel: Path) -> None:
    names = set(zipfile.ZipFile(built_wheel).namelist())
    data = package_data_files()
    # The schema, the migrations and the web client (its views included) are among them.
    assert "teamchat/store/schema.sql" in data
    assert any(n.startswith("teamchat/web/static/js/views/") for n in data)
    missing = [name for name in data if name not in names]
    assert not missing, f"missing from {built_wheel.name}: {missing}"
    modules = [n for n in source_files() if n.startswith("teamchat/") and n.endswith(".py")]
    assert not [n for n in modules if n not in names]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


# Building the wheel and a virtualenv takes a while on a busy machine (once per session).
@pytest.mark.timeout(600)
def test_the_installed_console_script_runs_the_wheels_package(
    installed_teamchat: InstalledTeamchat,
) -> None:
    assert installed_teamchat.imported_from().is_relative_to(installed_teamchat.venv)
    views = installed_teamchat.imported_from() / "web" / "static" / "js" / "views"
    assert sorted(p.name for p in views.iterdir()) == sorted(
        Path(n).name for n in package_data_files() if "/js/views/" in n
    )
