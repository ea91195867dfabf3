"""What `serve` checks and keeps in order around the database on each start: the zuliprc
beside it names the URL being served, and the database is not readable by other users."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from teamchat.cli.common import console, err_console, zuliprc_text


def zuliprc_path(db_path: Path) -> Path:
    return db_path.resolve().parent / "zuliprc"


def write_zuliprc(path: Path, email: str, api_key: str, site: str) -> str | None:
    """Write the owner's zuliprc (mode 0600); why it could not be written, or None."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror}"
    os.fchmod(fd, 0o600)  # an existing file keeps its mode through O_TRUNC
    with os.fdopen(fd, "w") as handle:
        handle.write(zuliprc_text(email, api_key, site))
    return None


def sync_zuliprc_site(path: Path, site: str) -> None:
    """Point the zuliprc beside the database at `site` when it names another URL (a server
    started on another port or address), and say so."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return  # none (or not ours to read): nothing to keep in step
    old = None
    for index, line in enumerate(lines):
        name, sep, value = line.partition("=")
        if sep and name.strip() == "site":
            old = value.strip()
            lines[index] = f"site={site}"
    if old is None or old.rstrip("/") == site:
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
        with os.fdopen(fd, "w") as handle:
            handle.write("\n".join(lines) + "\n")
    except OSError as exc:
        err_console.print(
            f"warning: {path} names {old}, but this server is {site}; "
            f"cannot update it: {exc.strerror}",
            soft_wrap=True,
        )
        return
    console.print(f"Updated {path}: site={site} (it named {old})", soft_wrap=True)


def warn_if_others_can_read(db_path: Path) -> None:
    """An older database may be readable by other users; it holds every API key."""
    try:
        mode = db_path.stat().st_mode
    except OSError:
        return
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        err_console.print(
            f"warning: other users can read {db_path}, which holds every API key: "
            f"chmod 600 {db_path}*",
            soft_wrap=True,
        )
