"""`teamchat backup` / `restore` through the CLI while a server runs, and `serve`'s
automatic backups."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from tests.support.api import Api
from tests.support.server import ServerProcess, cli


def _send(api: Api, content: str) -> int:
    body = api.ok("POST", "/messages", type="stream", to="general", topic="backup", content=content)
    return int(body["id"])


def _contents(api: Api) -> list[str]:
    narrow = [
        {"operator": "channel", "operand": "general"},
        {"operator": "topic", "operand": "backup"},
    ]
    messages = api.ok("GET", "/messages", anchor="newest", num_before=50, num_after=0,
                      narrow=narrow, apply_markdown=False)["messages"]  # fmt: skip
    return [m["content"] for m in messages]


def test_backup_while_serving_then_restore_after_stopping(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    proc = start_server()
    copy = tmp_path / "copy.db"
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        _send(owner, "before the backup")
        result = cli(proc.db, "backup", str(copy))
        assert "integrity ok" in result.stdout and "KiB" in result.stdout, result.stdout
        _send(owner, "after the backup")
        refused = cli(proc.db, "restore", str(copy), check=False)
        assert refused.returncode == 1 and "server is running" in refused.stderr
        assert "after the backup" in _contents(owner)  # refused means untouched
        again = cli(proc.db, "backup", str(copy), check=False)
        assert again.returncode == 1 and "--force" in again.stderr
    assert sqlite3.connect(copy).execute("PRAGMA integrity_check").fetchone() == ("ok",)
    proc.stop()
    restored = cli(proc.db, "restore", str(copy))
    assert "Restored" in restored.stdout
    proc.start()
    with Api(proc.url, proc.owner_email, proc.owner_key) as owner:
        assert _contents(owner) == ["before the backup"]


def test_restore_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    target = tmp_path / "target.db"
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("not a database" * 100)
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE stuff (x)")
    newer = tmp_path / "newer.db"
    with sqlite3.connect(newer) as conn:
        conn.execute("CREATE TABLE stuff (x)")
        conn.execute("PRAGMA application_id=1952671860")  # ours: "tcht"
        conn.execute("PRAGMA user_version=99999")
    for source, message in (
        (tmp_path / "absent.db", "missing or empty"),
        (not_sqlite, "not a SQLite database"),
        (foreign, "not a teamchat one"),
        (newer, "this teamchat knows up to"),
    ):
        result = cli(target, "restore", str(source), check=False)
        assert result.returncode == 1 and message in " ".join(result.stderr.split()), result.stderr
        assert "Traceback" not in result.stderr
    assert not target.exists()


def test_serve_backs_up_on_a_schedule_and_keeps_the_newest(
    start_server: Callable[..., ServerProcess],
) -> None:
    # 0.0003 hours is about a second.
    proc = start_server(env={"TEAMCHAT_BACKUP_EVERY_HOURS": "0.0003", "TEAMCHAT_BACKUP_KEEP": "2"})
    folder = proc.directory / "backups"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if len(list(folder.glob("teamchat-*.db"))) >= 2 and "backup written" in proc.log():
            time.sleep(2.5)  # at least one more round: rotation keeps two
            break
        time.sleep(0.2)
    files = sorted(folder.glob("teamchat-*.db"))
    assert len(files) == 2, (files, proc.log())
    conn = sqlite3.connect(files[-1])
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert conn.execute("SELECT count(*) FROM stream").fetchone()[0] == 3
