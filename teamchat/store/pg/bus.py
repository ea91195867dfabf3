"""PgBus: text that one server process announces to every other process on the same
PostgreSQL database, in commit order. The store does not know what the text means: the
runtime connects it to the event broker (`events/shared.py`).

Sending. A batch of write transactions whose bodies left `after_commit` hooks (or that runs
while loose text waits, see `send_soon`) takes a session advisory lock just before its
COMMIT, in the same round trip as the read of the tables it changed. After COMMIT its hooks
run (they publish locally and leave text behind), `collect()` takes that text, and one
statement sends it with `pg_notify` and releases the lock. So announcements leave in the
order their data committed, whichever process committed it, and PostgreSQL delivers
notifications in the order they were sent. Text too long for a notification (PostgreSQL's
limit is 8000 bytes) is written to the `teamchat_bus` table in that same statement and the
notification carries its row id; rows are dropped after `KEEP_ROWS_SECS`.

Text left outside any commit (typing notifications) is sent on its own by `send_soon`, with
no lock: it is ordered after this process's earlier commits, not against other processes'.

Receiving. The LISTEN connection (`PgDatabase._listen`) hands each notification to
`heard`; our own are skipped (they were delivered locally when published). Text is passed on
in arrival order; one that must be read from the table holds back those after it until it
is read. When the LISTEN connection was lost and comes back, notifications of the time in
between are gone: `reconnected` tells the receiver so.

A boundary (`PgDatabase.read_in_step`, for register): a process takes the lock in shared
mode (no announcing batch commits meanwhile), sends a boundary notification, takes a
snapshot and releases the lock. When its own boundary comes back, every announcement of a
change in the snapshot has been handed on, and none of a later change; what arrives after
it is held until the waiter has created its queue (`resume`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from contextlib import suppress
from typing import Any, Protocol

log = logging.getLogger(__name__)

CHANNEL = "teamchat_events"
# pg_advisory_lock key ("tchb"): held from just before COMMIT until the announcement is sent.
LOCK_KEY = 0x74636862
# Bytes of text sent inside the notification; longer text goes through the table.
INLINE_LIMIT = 7800
KEEP_ROWS_SECS = 600
# Created (if missing) at every start, with the triggers: state of the moment, not data;
# UNLOGGED (no WAL): a crash of the database loses no acknowledged write, only this text.
TABLE_SQL = (
    "CREATE UNLOGGED TABLE IF NOT EXISTS teamchat_bus (id BIGINT GENERATED ALWAYS AS IDENTITY"
    " PRIMARY KEY, body TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now())"
)
# The first character of a notification's payload: text, a row of the table, a boundary.
_INLINE, _STORED, _BOUNDARY = "i", "r", "b"


def _literal(text: str) -> str:
    """`text` as an SQL string constant (dollar-quoted with a tag the text does not hold),
    for the scripts below: they run as several statements, so they take no parameters."""
    tag = "tc"
    while f"${tag}$" in text:
        tag = "tc" + secrets.token_hex(4)
    return f"${tag}${text}${tag}$"


def _send_sql(text: str) -> str:
    """One statement sending `text`: inline, or through the table when too long."""
    if len(text) <= INLINE_LIMIT and len(text.encode()) <= INLINE_LIMIT:
        return f"SELECT pg_notify('{CHANNEL}', {_literal(_INLINE + text)})"
    return (
        f"WITH gone AS (DELETE FROM teamchat_bus WHERE created_at < now() - interval"
        f" '{KEEP_ROWS_SECS} seconds'), kept AS (INSERT INTO teamchat_bus (body) VALUES"
        f" ({_literal(text)}) RETURNING id) SELECT pg_notify('{CHANNEL}', '{_STORED}' || kept.id)"
        f" FROM kept"
    )


class HasHooks(Protocol):
    def has_after_commit(self) -> bool: ...


Collect = Callable[[], str | None]
Receive = Callable[[str], None]
Lost = Callable[[], None]


class PgBus:
    """The announcements of one process's store (see the module docstring)."""

    def __init__(
        self,
        locked: Callable[[], Any],
        in_batch: Callable[[], bool],
        read_stored: Callable[[int], Awaitable[str | None]],
    ) -> None:
        # `locked()`: the writer connection under the store's write lock (an async context).
        self._locked = locked
        self._in_batch = in_batch
        self._read_stored = read_stored
        self._collect: Collect | None = None
        self._receive: Receive | None = None
        self._lost: Lost | None = None
        self._loose = False  # text left outside a commit waits for the next batch
        self._sender: asyncio.Task[None] | None = None
        self._incoming: deque[str] = deque()
        self._reader: asyncio.Task[None] | None = None
        self._boundaries: dict[str, asyncio.Future[None]] = {}
        self._held = False  # a boundary was heard: hold what follows until `resume()`
        self.own_pid = -1  # the writer's backend: our own notifications

    def attach(self, collect: Collect, receive: Receive, lost: Lost) -> None:
        """Announce what `collect()` returns after each batch; hand other processes' text
        to `receive`; call `lost()` when notifications may have been missed."""
        self._collect, self._receive, self._lost = collect, receive, lost

    # -- sending ----------------------------------------------------------------------
    def must_announce(self, bodies: Sequence[HasHooks]) -> bool:
        """Whether the batch of `bodies` takes the lock (and sends what it leaves)."""
        if self._collect is None:
            return False
        return self._loose or any(body.has_after_commit() for body in bodies)

    async def announce(self, writer: Any) -> None:
        """After COMMIT and the batch's hooks: send the text, release the lock.

        The notification is queued when its transaction commits, so the lock is released
        only after that COMMIT (one script, one round trip): a batch of another process
        cannot be announced in between."""
        self._loose = False
        text = self._collect() if self._collect is not None else None
        try:
            if text is None:
                await writer.execute("SELECT pg_advisory_unlock($1)", LOCK_KEY)
            else:
                send = _send_sql(text)
                await writer.execute(
                    f"BEGIN; {send}; COMMIT; SELECT pg_advisory_unlock({LOCK_KEY})"
                )
        except Exception:
            log.exception("could not announce committed events to the other processes")
            with suppress(Exception):
                if writer.is_in_transaction():
                    await writer.execute("ROLLBACK")
            await self.release(writer)

    @staticmethod
    async def release(writer: Any) -> None:
        """Release the lock after a failed commit or announcement."""
        with suppress(Exception):
            if not writer.is_closed():
                await writer.execute("SELECT pg_advisory_unlock($1)", LOCK_KEY)

    def send_soon(self) -> None:
        """Text was left outside any commit: send it shortly (with the next batch's
        announcement if a batch is open)."""
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send_loose())

    async def _send_loose(self) -> None:
        async with self._locked() as writer:
            if self._collect is None:
                return
            if self._in_batch():  # its commit takes the lock and sends this text too
                self._loose = True
                return
            text = self._collect()
            if text is None:
                return
            try:
                await writer.execute(_send_sql(text))
            except Exception:
                log.exception("could not announce events to the other processes")

    # -- receiving --------------------------------------------------------------------
    def heard(self, _conn: Any, pid: int, _channel: str, payload: str) -> None:
        """A notification on CHANNEL (asyncpg's listener callback)."""
        if pid == self.own_pid or self._receive is None:
            return
        if payload.startswith(_BOUNDARY) and payload[1:] not in self._boundaries:
            return  # another process's
        if not self._incoming and not self._held and not payload.startswith(_STORED):
            self._hand_on(payload, payload[1:])  # the usual case: nothing ahead of it
            return
        self._incoming.append(payload)
        self._start_draining()

    def _start_draining(self) -> None:
        if self._incoming and not self._held and (self._reader is None or self._reader.done()):
            self._reader = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        while self._incoming and not self._held:
            payload = self._incoming[0]
            text: str | None = payload[1:]
            if payload.startswith(_STORED):
                try:
                    text = await self._read_stored(int(payload[1:]))
                except Exception:
                    log.exception("could not read announced events (row %s)", payload[1:])
                    text = None
            self._incoming.popleft()
            if text is None:
                self._missed(f"announced events (row {payload[1:]}) could not be read")
            else:
                self._hand_on(payload, text)

    def _hand_on(self, payload: str, text: str) -> None:
        if payload.startswith(_BOUNDARY):
            heard = self._boundaries.get(text)
            if heard is not None and not heard.done():
                heard.set_result(None)
                self._held = True  # until its waiter made what must be in step
            return
        assert self._receive is not None
        try:
            self._receive(text)
        except Exception:
            log.exception("could not deliver events announced by another process")

    # -- a boundary in the stream ---------------------------------------------------------
    @property
    def attached(self) -> bool:
        return self._receive is not None

    def boundary(self) -> tuple[str, asyncio.Future[None]]:
        """A new boundary: the SQL that sends it, and a future done once it was heard (every
        announcement sent before it has then been handed on)."""
        token = secrets.token_hex(8)
        heard = self._boundaries[token] = asyncio.get_running_loop().create_future()
        return f"SELECT pg_notify('{CHANNEL}', '{_BOUNDARY}{token}')", heard

    def resume(self) -> None:
        """Hand on what arrived after a boundary (held since it was heard)."""
        if self._held:
            self._held = False
            while self._incoming and not self._incoming[0].startswith(_STORED):
                payload = self._incoming.popleft()
                self._hand_on(payload, payload[1:])
                if self._held:  # another boundary
                    return
            self._start_draining()

    def forget(self, heard: asyncio.Future[None]) -> None:
        for token, future in list(self._boundaries.items()):
            if future is heard:
                del self._boundaries[token]

    def reconnected(self) -> None:
        """The LISTEN connection is back after a loss: announcements may have been missed."""
        self._missed("the connection listening for other processes' events was lost")

    def _missed(self, why: str) -> None:
        log.warning("%s: events of other processes may have been missed", why)
        if self._lost is not None:
            self._lost()

    async def close(self) -> None:
        for task in (self._sender, self._reader):
            if task is not None and not task.done():
                task.cancel()
                with suppress(asyncio.CancelledError, Exception):
                    await task
