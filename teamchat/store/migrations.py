"""Versioned schema migrations keyed by `PRAGMA user_version`, applied at start-up.

Step 1 is `schema.sql`; every later change is a numbered file `steps/NNNN_name.sql`
(applied in order, never edited once shipped). Also recognizes files that are not teamchat
databases, so we never write to them.
"""

from __future__ import annotations

import sqlite3
from importlib import resources
from pathlib import Path

# "tcht": marks the SQLite file as ours (PRAGMA application_id).
APPLICATION_ID = 0x74636874


class NotOurDatabaseError(Exception):
    """The file exists but is not a teamchat database (or is from a newer teamchat)."""


def _schema_v1() -> str:
    return resources.files("teamchat.store").joinpath("schema.sql").read_text(encoding="utf-8")


def _steps() -> dict[int, str]:
    """Step number -> SQL: schema.sql is step 1, then steps/NNNN_name.sql by number."""
    folder = resources.files("teamchat.store").joinpath("steps")
    steps = {1: _schema_v1()}
    for step in folder.iterdir():
        if step.name.endswith(".sql"):
            number = int(step.name.split("_", 1)[0])
            if number in steps or number < 2:
                raise RuntimeError(f"migration {step.name} reuses step number {number}")
            steps[number] = step.read_text(encoding="utf-8")
    return dict(sorted(steps.items()))


# `PRAGMA user_version` is the number of the last step applied.
MIGRATIONS: dict[int, str] = _steps()
SCHEMA_VERSION = max(MIGRATIONS)


def check_application_id(path: Path) -> None:
    """Raise NotOurDatabaseError unless `path` is absent, empty, or a teamchat database."""
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise NotOurDatabaseError(f"{path} is not a SQLite database ({exc})") from None
    if app_id != APPLICATION_ID and (tables or version):
        raise NotOurDatabaseError(f"{path} is a SQLite database, but not a teamchat one")
    if version > SCHEMA_VERSION:
        raise NotOurDatabaseError(
            f"{path} has schema version {version}; this teamchat knows up to {SCHEMA_VERSION}"
        )


def migrate(conn: sqlite3.Connection) -> int:
    """Apply pending steps in one transaction; return the resulting schema version."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("PRAGMA user_version").fetchone()
        version = int(row[0]) if row else 0
        for number, step in MIGRATIONS.items():
            if number <= version:
                continue
            for statement in _split_statements(step):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return SCHEMA_VERSION


def _split_statements(script: str) -> list[str]:
    """Split a script into complete statements (executescript would COMMIT our transaction)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        if not current and (not line.strip() or line.lstrip().startswith("--")):
            continue
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements
