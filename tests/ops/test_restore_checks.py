"""`teamchat restore` checks a copy of the backup before it touches the database: schema
version, every table and column, `PRAGMA integrity_check`; and never restores a file onto
itself."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from teamchat.store.migrations import SCHEMA_VERSION
from tests.support.api import Api
from tests.support.server import ServerProcess, cli


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stopped server's database with one message."""
    proc = ServerProcess(tmp_path_factory.mktemp("restore-template")).start()
    try:
        with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
            owner.ok("POST", "/messages", type="stream", to="general", topic="t", content="kept")
    finally:
        proc.stop()
    return proc.db


@pytest.fixture
def stopped(template: Path, tmp_path: Path) -> Iterator[Path]:
    """A copy of the template database, and a good backup of it beside (good.db)."""
    db = tmp_path / "live" / "teamchat.db"
    db.parent.mkdir()
    cli(template, "backup", str(db))
    cli(db, "backup", str(tmp_path / "good.db"))
    yield db


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused(db: Path, source: Path, message: str) -> None:
    before = digest(db)
    result = cli(db, "restore", str(source), check=False)
    text = " ".join(result.stderr.split())
    assert result.returncode == 1, result.stdout + result.stderr
    assert message in text, text
    assert "Traceback" not in result.stderr + result.stdout
    assert len(result.stderr.strip().splitlines()) <= 3, result.stderr  # one (wrapped) line
    assert digest(db) == before
    assert not list(db.parent.glob("*.restoring*"))


def test_restore_onto_itself_is_refused_at_once(stopped: Path) -> None:
    refused(stopped, stopped, "is the database itself")
    link = stopped.with_name("link.db")
    link.symlink_to(stopped)
    refused(stopped, link, "is the database itself")


def test_a_backup_missing_a_table_is_refused(stopped: Path, tmp_path: Path) -> None:
    broken = tmp_path / "no-reactions.db"
    shutil.copy(tmp_path / "good.db", broken)
    with sqlite3.connect(broken) as conn:
        conn.execute("DROP TABLE reaction")
    refused(stopped, broken, "table reaction is missing")


def test_a_backup_missing_a_column_is_refused(stopped: Path, tmp_path: Path) -> None:
    broken = tmp_path / "no-column.db"
    shutil.copy(tmp_path / "good.db", broken)
    with sqlite3.connect(broken) as conn:
        conn.execute("DROP TABLE alert_word")
        conn.execute("CREATE TABLE alert_word (id INTEGER PRIMARY KEY)")
    refused(stopped, broken, "table alert_word lacks column(s)")


def test_a_file_without_our_schema_is_refused(stopped: Path, tmp_path: Path) -> None:
    empty = tmp_path / "labelled.db"
    with sqlite3.connect(empty) as conn:
        conn.execute("CREATE TABLE anything (x)")
        conn.execute("PRAGMA application_id=1952671860")  # ours: "tcht"
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    refused(stopped, empty, "missing part of teamchat's schema")


def test_a_truncated_backup_is_refused(stopped: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.db"
    truncated = tmp_path / "truncated.db"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    refused(stopped, truncated, "truncated.db")


def test_a_backup_with_corrupted_pages_is_refused(stopped: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.db"
    damaged = tmp_path / "damaged.db"
    data = bytearray(good.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    pages = len(data) // page
    assert pages > 8
    for number in range(2, pages, 3):  # every third page after the header's
        data[number * page + 8 : number * page + 200] = b"\xa5" * 192
    damaged.write_bytes(bytes(data))
    refused(stopped, damaged, "damaged.db")


def test_a_sound_backup_still_restores(stopped: Path, tmp_path: Path) -> None:
    result = cli(stopped, "restore", str(tmp_path / "good.db"))
    assert "integrity and schema checked" in " ".join(result.stdout.split())
    assert not list(stopped.parent.glob("*.restoring*"))
