"""Values read from watched tables in read snapshots, kept with the tables' versions (see
`teamchat.store.db`'s docstring): reused while those versions stand."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from teamchat.store.conn import BaseDatabase, Conn

T = TypeVar("T")


class Memos:
    """Values read from watched tables, each kept with the table's version at the start of
    the snapshot that read it: a commit after that start makes it stale, never wrong."""

    def __init__(self, db: BaseDatabase) -> None:
        self._db = db
        self._values: dict[str, tuple[tuple[int, ...], object]] = {}
        self._started: dict[str, int] | None = None

    def start(self) -> Memos:
        """This object, for a snapshot starting now (remembers the versions now)."""
        view = Memos(self._db)
        view._values = self._values
        view._started = self._db.versions()
        return view

    async def get(
        self,
        conn: Conn,
        tables: tuple[str, ...],
        key: str,
        load: Callable[[Conn], Awaitable[T]],
        fresh: Callable[[T], bool] | None,
    ) -> T:
        hit = self._values.get(key)
        if hit is not None:
            versions = self._db.versions()
            if (
                versions is not None
                and hit[0] == tuple(versions[t] for t in tables)
                and (fresh is None or fresh(hit[1]))  # type: ignore[arg-type]
            ):
                return hit[1]  # type: ignore[return-value]
        value = await load(conn)
        if self._started is not None:
            self._values[key] = (tuple(self._started[t] for t in tables), value)
        return value
