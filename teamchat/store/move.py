"""Copying a whole teamchat database into another, of either backend (SQLite -> PostgreSQL,
PostgreSQL -> SQLite, or the same kind): `teamchat migrate`, backups of a PostgreSQL
database into a SQLite file, restoring one.

The source is read through one consistent snapshot (`store/snapshot.py`), table by table in
dependency order (`store/move_tables.py`), a batch of rows at a time (memory stays bounded
whatever the size), and written through the target store's own connection in ONE write
transaction: a copy that fails, or whose check finds a difference, leaves the target as it
was. Before that transaction ends the copy is checked against the snapshot: every table's
row count, and a sample of messages (spread over the ids, plus the newest) column by
column, with their per-user rows (flags) and reactions. PostgreSQL's identity sequences are
then moved past the copied ids, so new rows continue after them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from teamchat.store.backends import open_database
from teamchat.store.conn import Conn, DatabaseError, Tx
from teamchat.store.migrations import SCHEMA_VERSION
from teamchat.store.move_tables import TableSpec, table_specs
from teamchat.store.snapshot import Snapshot, open_snapshot

SAMPLED_MESSAGES = 200
Progress = Callable[[str, int, int], None]  # (table, rows copied, rows in all)


class MoveRefusedError(Exception):
    """The copy cannot start (a target holding data, a source of another schema version)."""


class MoveMismatchError(Exception):
    """The copy differs from the source (the target was left unchanged)."""

    def __init__(self, report: MoveReport) -> None:
        super().__init__("; ".join(report.mismatches[:5]))
        self.report = report


@dataclass
class MoveReport:
    source: str
    target: str
    counts: list[tuple[str, int, int]] = field(default_factory=list)  # (table, source, target)
    sampled_messages: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return sum(source for _name, source, _target in self.counts)


def _no_progress(_table: str, _done: int, _total: int) -> None:
    return None


async def move_database(
    source: str | Path,
    target: str | Path,
    progress: Progress = _no_progress,
    *,
    replace: bool = False,
) -> MoveReport:
    """Copy the database `source` names into `target` (created with this version's schema
    when new). Refuses a target holding data, unless `replace` (a restore: its rows are
    deleted in the same transaction that copies)."""
    async with open_snapshot(source) as snapshot:
        check_version(snapshot)
        return await copy_snapshot(snapshot, target, progress, replace=replace)


def check_version(snapshot: Snapshot) -> None:
    if snapshot.version < SCHEMA_VERSION:
        raise MoveRefusedError(
            f"{snapshot.where} has schema version {snapshot.version}, this teamchat"
            f" {SCHEMA_VERSION}: bring it up to date first (start `teamchat serve` on it"
            " once, or run any `teamchat admin` command on it), then copy it"
        )


async def copy_snapshot(
    snapshot: Snapshot, target: str | Path, progress: Progress, *, replace: bool = False
) -> MoveReport:
    db = open_database(target, readers=1)
    try:
        await db.open()
    except (OSError, ValueError, TimeoutError) as exc:  # unreachable, or a URL not understood
        raise DatabaseError(f"cannot open {db.describe()}: {exc}") from None
    try:
        report = MoveReport(snapshot.where, db.describe())
        async with db.write() as tx:
            specs = table_specs()
            if replace:
                for spec in reversed(specs):
                    await tx.execute(f"DELETE FROM {spec.name}")
            else:
                await _check_empty(tx, report.target)
            for spec in specs:
                await _copy_table(snapshot.conn, tx, spec, progress)
            await tx.advance_id_sequences(tuple(s.name for s in specs if s.has_id))
            await _verify(snapshot.conn, tx, report)
            if report.mismatches:
                raise MoveMismatchError(report)
        return report
    finally:
        await db.close()


async def _check_empty(conn: Conn, where: str) -> None:
    holding = []
    for spec in table_specs():
        if not spec.seeded and await conn.fetchone(f"SELECT 1 FROM {spec.name} LIMIT 1"):
            holding.append(spec.name)
    if holding:
        raise MoveRefusedError(
            f"{where} is not empty (it holds rows in {', '.join(holding[:5])}"
            f"{' and more' if len(holding) > 5 else ''}); copy into a new, empty database"
        )


async def _count(conn: Conn, table: str) -> int:
    row = await conn.fetchone(f"SELECT count(*) FROM {table}")
    return int(row[0]) if row else 0


async def _copy_table(source: Conn, target: Tx, spec: TableSpec, progress: Progress) -> None:
    total = await _count(source, spec.name)
    if spec.seeded:  # the migrations' rows: the source's replace them
        await target.execute(f"DELETE FROM {spec.name}")
    progress(spec.name, 0, total)
    done = 0
    last: tuple[object, ...] | None = None
    later: list[tuple[object, ...]] = []  # (value, id) of self references set afterwards
    refs = [(spec.columns.index(c), c) for c in spec.self_refs]
    page = spec.select() + spec.order() + " LIMIT ?"
    next_page = spec.select() + spec.after() + spec.order() + " LIMIT ?"
    while True:
        if last is None:
            rows = await source.fetchall_tuples(page, (spec.batch,))
        else:
            rows = await source.fetchall_tuples(next_page, (*last, spec.batch))
        if not rows:
            break
        last = spec.key_of(rows[-1])
        if refs:
            rows = [_defer_self_refs(row, refs, later) for row in rows]
        await target.executemany(spec.insert(), rows)
        done += len(rows)
        progress(spec.name, done, total)
    for column in spec.self_refs:
        updates: list[tuple[object, ...]] = [
            (value, row_id) for name, value, row_id in later if name == column
        ]
        await target.executemany(f'UPDATE {spec.name} SET "{column}" = ? WHERE id = ?', updates)


def _defer_self_refs(
    row: tuple[object, ...], refs: list[tuple[int, str]], later: list[tuple[object, ...]]
) -> tuple[object, ...]:
    """`row` with references to rows not copied yet (larger ids) left NULL for now; they are
    noted in `later` as (column, value, id)."""
    values = list(row)
    row_id = values[0]
    for at, column in refs:
        value = values[at]
        if isinstance(value, int) and isinstance(row_id, int) and value >= row_id:
            later.append((column, value, row_id))
            values[at] = None
    return tuple(values)


async def _verify(source: Conn, target: Conn, report: MoveReport) -> None:
    for spec in table_specs():
        counts = await _count(source, spec.name), await _count(target, spec.name)
        report.counts.append((spec.name, *counts))
        if counts[0] != counts[1]:
            report.mismatches.append(
                f"table {spec.name}: {counts[0]} rows in the source, {counts[1]} in the copy"
            )
    ids = await _sample_ids(source)
    report.sampled_messages = len(ids)
    if not ids:
        return
    marks = ", ".join("?" for _ in ids)
    message = next(s for s in table_specs() if s.name == "message")
    for what, sql in (
        ("messages", f"{message.select()} WHERE id IN ({marks}) ORDER BY id"),
        ("message flags", "SELECT user_id, message_id, flags FROM user_message"
                          f" WHERE message_id IN ({marks}) ORDER BY message_id, user_id"),
        ("reactions", "SELECT id, message_id, user_id, emoji_name, emoji_code, reaction_type"
                      f" FROM reaction WHERE message_id IN ({marks}) ORDER BY id"),
    ):  # fmt: skip
        found = await source.fetchall_tuples(sql, ids), await target.fetchall_tuples(sql, ids)
        if found[0] != found[1]:
            differing = sum(1 for a, b in zip(*found, strict=False) if a != b)
            report.mismatches.append(
                f"{what} of the {len(ids)} sampled messages differ"
                f" ({len(found[0])} rows in the source, {len(found[1])} in the copy,"
                f" {differing} differing)"
            )


async def _sample_ids(conn: Conn) -> tuple[int, ...]:
    """Up to SAMPLED_MESSAGES message ids spread evenly over the id range, and the newest."""
    row = await conn.fetchone("SELECT min(id), max(id) FROM message")
    if row is None or row[0] is None:
        return ()
    low, high = int(row[0]), int(row[1])
    ids = {high}
    for step in range(SAMPLED_MESSAGES):
        found = await conn.fetchone(
            "SELECT id FROM message WHERE id >= ? ORDER BY id LIMIT 1",
            (low + (high - low) * step // SAMPLED_MESSAGES,),
        )
        if found is not None:
            ids.add(int(found[0]))
    return tuple(sorted(ids))


__all__ = [
    "MoveMismatchError",
    "MoveRefusedError",
    "MoveReport",
    "check_version",
    "copy_snapshot",
    "move_database",
]
