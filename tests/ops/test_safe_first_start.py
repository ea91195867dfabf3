"""`teamchat serve` starts safely: a busy port or an unusable path is one line of error with
nothing created; the database, its -wal and -shm files, backups and exports are readable by
their owner only; the zuliprc and invitation links name the URL actually served; and the
checkout's .gitignore covers what a server writes."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from teamchat.store import backup as backup_store
from teamchat.store.backup import DatabaseInUseError, ServerLock, lock_path
from tests.support.quickstart import ROOT
from tests.support.server import ServerProcess, cli, free_port


def _one_line_error(result: subprocess.CompletedProcess[str], *expected: str) -> str:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


def test_a_busy_port_creates_nothing(tmp_path: Path, busy_port: int) -> None:
    result = cli(tmp_path / "teamchat.db", "serve", "--port", str(busy_port), check=False)
    _one_line_error(result, f"127.0.0.1:{busy_port}", "in use", "--port")
    assert "password" not in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_the_sandbox_on_a_busy_port_seeds_nothing(tmp_path: Path, busy_port: int) -> None:
    result = cli(tmp_path / "dev.db", "sandbox", "--port", str(busy_port), check=False)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("INSECURE SANDBOX")  # its warning, then the error
    assert result.stderr.strip().splitlines()[-1].startswith("error: cannot listen on")
    assert list(tmp_path.iterdir()) == []


def _unwritable_folder(tmp_path: Path) -> Path:
    """A folder this process cannot create files in (root writes anywhere but /sys)."""
    if os.geteuid() == 0:
        return Path("/sys")
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o500)
    return folder


def test_an_unwritable_folder_is_one_line(tmp_path: Path) -> None:
    db = _unwritable_folder(tmp_path) / "teamchat-test.db"
    result = cli(db, "serve", "--port", str(free_port()), check=False)
    _one_line_error(result, str(db), "Permission denied")
    assert not db.exists()


def test_a_folder_given_as_the_database_is_one_line(tmp_path: Path) -> None:
    result = cli(tmp_path, "serve", "--port", str(free_port()), check=False)
    _one_line_error(result, str(tmp_path))


def test_a_refused_file_leaves_no_lock_file(tmp_path: Path) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("my notes, not a database\n")
    result = cli(notes, "serve", "--port", str(free_port()), check=False)
    _one_line_error(result, "not a SQLite database")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]
    assert notes.read_text() == "my notes, not a database\n"
    restored = cli(tmp_path / "new.db", "restore", str(notes), check=False)
    _one_line_error(restored, "not a SQLite database")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


@pytest.mark.sqlite_only("the file modes of teamchat.db, its -wal, -shm and .lock files")
def test_the_database_and_its_copies_are_readable_by_the_owner_only(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    proc = start_server()
    for suffix in ("", "-wal", "-shm", ".lock"):
        path = Path(f"{proc.db}{suffix}")
        assert _mode(path) == 0o600, (path, oct(_mode(path)))
    assert _mode(proc.directory / "zuliprc") == 0o600
    backups = tmp_path / "backups"
    backups.mkdir()
    cli(proc.db, "backup", str(backups))
    (backup,) = backups.iterdir()
    assert _mode(backup) == 0o600
    cli(proc.db, "export", str(tmp_path / "export.tar.gz"))
    assert _mode(tmp_path / "export.tar.gz") == 0o600
    cli(proc.db, "export", str(tmp_path / "export"))
    assert _mode(tmp_path / "export") == 0o700
    assert {_mode(p) for p in (tmp_path / "export").rglob("*") if p.is_file()} == {0o600}
    with tarfile.open(tmp_path / "export.tar.gz") as tar:
        assert tar.getnames()
    proc.stop()
    assert not Path(f"{proc.db}.lock").exists()  # no lock file once the server has stopped


@pytest.mark.sqlite_only("the warning about a world-readable teamchat.db")
def test_an_older_world_readable_database_gets_a_warning(
    start_server: Callable[..., ServerProcess],
) -> None:
    proc = start_server()
    proc.stop()
    proc.db.chmod(0o644)
    proc.start()
    assert f"warning: other users can read {proc.db}" in proc.log()
    assert "chmod 600" in proc.log()


def test_the_zuliprc_follows_the_port_being_served(
    start_server: Callable[..., ServerProcess],
) -> None:
    proc = start_server()
    first = proc.url
    assert proc.zuliprc()["site"] == first
    key = proc.zuliprc()["key"]
    proc.stop()
    proc.start()  # another free port
    assert proc.url != first
    assert proc.zuliprc() == {"email": proc.owner_email, "key": key, "site": proc.url}
    assert f"Updated {proc.directory / 'zuliprc'}: site={proc.url} (it named {first})" in proc.log()
    assert _mode(proc.directory / "zuliprc") == 0o600


def test_admin_invite_links_use_the_url_being_served(
    start_server: Callable[..., ServerProcess],
) -> None:
    proc = start_server()
    running = cli(proc.db, "admin", "invite")
    assert running.stdout.strip().startswith(f"{proc.url}/join/"), running.stdout
    assert running.stderr == ""
    configured = cli(
        proc.db, "admin", "invite", env={"TEAMCHAT_EXTERNAL_URL": "https://chat.example.com/"}
    )
    assert configured.stdout.strip().startswith("https://chat.example.com/join/")
    given = cli(proc.db, "admin", "invite", "--site", "https://other.example.com")
    assert given.stdout.strip().startswith("https://other.example.com/join/")
    proc.stop()
    # Stopped, the links keep the URL the server pinned when it last served.
    stopped = cli(proc.db, "admin", "invite")
    assert stopped.stdout.strip().startswith(f"{proc.url}/join/"), stopped.stdout


@pytest.mark.sqlite_only("the database files beside a server that .gitignore must cover")
def test_gitignore_covers_what_a_server_writes(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    proc = start_server()
    (proc.directory / "backups").mkdir()
    cli(proc.db, "backup", str(proc.directory / "backups"))
    written = sorted(
        str(p.relative_to(proc.directory))
        for p in proc.directory.rglob("*")
        if p.is_file() and p.name != "server.log"  # the test's own log
    )
    assert {
        "teamchat.db",
        "teamchat.db-wal",
        "teamchat.db-shm",
        "teamchat.db.lock",
        "zuliprc",
    } <= set(written)
    written.append("dev-zuliprc/iago.zuliprc")  # what `teamchat --db dev.db sandbox` writes
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        input="\n".join(written),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if ignored.returncode == 128:
        pytest.skip(f"not a git checkout: {ignored.stderr.strip()}")
    assert sorted(ignored.stdout.split()) == sorted(written)


def test_an_unwritable_zuliprc_still_shows_the_password(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    directory = tmp_path / "blocked"
    (directory / "zuliprc").mkdir(parents=True)  # cannot be written as a file
    proc = ServerProcess(directory)
    proc.start()
    try:
        output = proc.first_output
        assert "owner password:" in output and "Traceback" not in output
        assert f"(cannot write {directory / 'zuliprc'}: Is a directory)" in output
    finally:
        proc.stop()


def test_the_server_lock_is_exclusive_and_leaves_no_file(tmp_path: Path) -> None:
    db = tmp_path / "teamchat.db"
    first = ServerLock(db)
    first.acquire()
    with pytest.raises(DatabaseInUseError):
        ServerLock(db).acquire()
    first.release()
    assert not lock_path(db).exists()


def test_a_lock_file_deleted_while_being_locked_is_not_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that opened the lock file just before its holder deleted it (on release) must
    not keep a lock on the deleted file: it locks the file now at the path instead."""
    db = tmp_path / "teamchat.db"
    real_flock = backup_store.fcntl.flock
    calls = []

    def flock_after_deletion(handle: object, operation: int) -> None:
        calls.append(operation)
        if len(calls) == 1:
            lock_path(db).unlink()  # the previous holder releases between open and flock
        real_flock(handle, operation)  # type: ignore[arg-type]

    monkeypatch.setattr(backup_store.fcntl, "flock", flock_after_deletion)
    lock = ServerLock(db)
    lock.acquire()
    monkeypatch.setattr(backup_store.fcntl, "flock", real_flock)
    assert len(calls) == 2  # it tried again on the new file
    with pytest.raises(DatabaseInUseError):
        ServerLock(db).acquire()
    lock.release()
    assert not lock_path(db).exists()
