"""The tables a database move copies, from this version's schema (the same numbered steps on
both backends, so the same tables and columns): in dependency order (a table after those its
foreign keys name), each with the columns to copy, the key to page through it by, and how
many rows one batch holds (few for tables of upload bytes).

Left out: SQLite's own tables, and the search index (`message_fts` and its shadow tables on
SQLite, a generated column on PostgreSQL): each backend builds its own from the messages.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from functools import cache

from teamchat.store.migrations import migrate

ROWS_PER_BATCH = 1000
# Tables holding bytes (upload chunks of up to a few MB, avatars, thumbnails, exports).
BYTES_ROWS_PER_BATCH = 8


@dataclass(frozen=True)
class TableSpec:
    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]  # unique and not null: pages are `WHERE (key) > (last) ORDER BY key`
    batch: int
    has_id: bool  # an `id` column the database assigns (PostgreSQL: an identity)
    # Columns naming a row of this same table (users.bot_owner_id): a row may name one with a
    # larger id, so these are set once every row is in.
    self_refs: tuple[str, ...]
    seeded: bool  # a new database already holds rows here (the migrations insert them)

    def select(self) -> str:
        return f"SELECT {_quoted(self.columns)} FROM {self.name}"

    def order(self) -> str:
        return f" ORDER BY {_quoted(self.key)}"

    def after(self) -> str:
        """The WHERE clause of the page after the row whose key is given."""
        marks = ", ".join("?" for _ in self.key)
        return f" WHERE ({_quoted(self.key)}) > ({marks})"

    def insert(self) -> str:
        marks = ", ".join("?" for _ in self.columns)
        return f"INSERT INTO {self.name} ({_quoted(self.columns)}) VALUES ({marks})"

    def key_of(self, row: tuple[object, ...]) -> tuple[object, ...]:
        return tuple(row[self.columns.index(column)] for column in self.key)


def _quoted(names: tuple[str, ...]) -> str:
    return ", ".join(f'"{name}"' for name in names)


def _left_out(name: str) -> bool:
    return name.startswith("sqlite_") or name.startswith("message_fts")


@cache
def table_specs() -> tuple[TableSpec, ...]:
    """Every copied table, in an order where foreign keys name rows copied before."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(conn)
        names = [
            str(row[0])
            for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid"
            )
            if not _left_out(str(row[0]))
        ]
        specs = {name: _spec(conn, name) for name in names}
        depends = {
            name: {str(fk[2]) for fk in conn.execute(f"PRAGMA foreign_key_list({name})")} - {name}
            for name in names
        }
    finally:
        conn.close()
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [n for n in names if n not in ordered and depends[n] <= set(ordered)]
        if not ready:  # a cycle (none today): keep the schema's order for what is left
            ready = [n for n in names if n not in ordered][:1]
        ordered.extend(ready)
    return tuple(specs[name] for name in ordered)


def _spec(conn: sqlite3.Connection, name: str) -> TableSpec:
    info = list(conn.execute(f"PRAGMA table_xinfo({name})"))
    columns = tuple(str(r[1]) for r in info if r[6] == 0)  # not hidden, not generated
    key = tuple(str(r[1]) for r in sorted(info, key=lambda r: int(r[5])) if r[5])
    if not key:
        key = _unique_index(conn, name)
    blobs = any(str(r[2]).upper() == "BLOB" for r in info)
    self_refs = tuple(
        str(fk[3])
        for fk in conn.execute(f"PRAGMA foreign_key_list({name})")
        if fk[2] == name and fk[4] == "id"
    )
    seeded = conn.execute(f"SELECT 1 FROM {name} LIMIT 1").fetchone() is not None
    return TableSpec(
        name=name,
        columns=columns,
        key=key,
        batch=BYTES_ROWS_PER_BATCH if blobs else ROWS_PER_BATCH,
        has_id="id" in columns,
        self_refs=self_refs,
        seeded=seeded,
    )


def _unique_index(conn: sqlite3.Connection, name: str) -> tuple[str, ...]:
    for index in conn.execute(f"PRAGMA index_list({name})"):
        if index[2]:  # unique
            return tuple(str(r[2]) for r in conn.execute(f'PRAGMA index_info("{index[1]}")'))
    raise RuntimeError(f"table {name} has no key to copy it by")


__all__ = ["TableSpec", "table_specs"]
