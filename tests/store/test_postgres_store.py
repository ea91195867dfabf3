"""The PostgreSQL store beside the SQLite one: the store's contract (group commit, rollback of
one body, hooks after COMMIT in commit order, durability, cache versions, constraint errors)
on both backends, cross-process cache invalidation on PostgreSQL, and a server on
PostgreSQL walked through HTTP (register, send, fetch, flags, reactions, edit, search)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from teamchat.store.backends import open_database
from teamchat.store.conn import BaseDatabase, IntegrityError
from tests.support.api import Api, assert_success
from tests.support.channels import Queue, subscribe, unique_name
from tests.support.postgres import PostgresServer
from tests.support.server import ServerProcess

Opener = Callable[[], BaseDatabase]


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store test's database lives: a SQLite file or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    cluster: PostgresServer = request.getfixturevalue("postgres")
    return cluster.new_database("store")


@pytest.fixture
async def db(target: str) -> AsyncIterator[BaseDatabase]:
    database = open_database(target if target.startswith("postgresql") else Path(target))
    await database.open()
    yield database
    await database.close()


async def _linkifiers(db: BaseDatabase) -> list[str]:
    async with db.read() as conn:
        rows = await conn.fetchall('SELECT pattern FROM linkifier ORDER BY "order"')
    return [str(row["pattern"]) for row in rows]


async def _add_linkifier(db: BaseDatabase, pattern: str, order: int) -> int:
    async with db.write() as tx:
        return await tx.execute(
            'INSERT INTO linkifier (pattern, url_template, "order") VALUES (?, ?, ?)',
            (pattern, "https://example.com/{id}", order),
        )


async def test_group_commit_rolls_back_only_the_failing_body(db: BaseDatabase) -> None:
    committed: list[str] = []
    seen_at_hook: list[list[str]] = []

    async def body(pattern: str, order: int, fail: bool) -> None:
        async with db.write() as tx:
            await tx.execute(
                'INSERT INTO linkifier (pattern, url_template, "order") VALUES (?, ?, ?)',
                (pattern, "https://example.com/{id}", order),
            )
            if fail:
                raise RuntimeError("this body fails")

            def hook(name: str = pattern) -> None:
                committed.append(name)
                seen_at_hook.append(list(committed))

            tx.after_commit(hook)

    results = await asyncio.gather(
        *(body(f"p{i}", i, fail=i == 2) for i in range(5)), return_exceptions=True
    )
    assert [type(r).__name__ for r in results] == ["NoneType"] * 2 + ["RuntimeError"] + [
        "NoneType"
    ] * 2
    assert committed == ["p0", "p1", "p3", "p4"]  # commit order, the failed body dropped
    assert await _linkifiers(db) == ["p0", "p1", "p3", "p4"]


async def test_constraint_errors_are_the_stores_and_change_nothing(db: BaseDatabase) -> None:
    await _add_linkifier(db, "dup", 1)
    with pytest.raises(IntegrityError):
        await _add_linkifier(db, "dup", 2)  # UNIQUE(pattern)
    assert await _linkifiers(db) == ["dup"]
    await _add_linkifier(db, "after", 3)  # the writer is usable after the failure
    assert await _linkifiers(db) == ["dup", "after"]


async def test_a_refused_statement_undoes_only_itself(db: BaseDatabase) -> None:
    """A body that catches an IntegrityError goes on with everything else it wrote (SQLite's
    statement-level rollback), whether the refused statement came first or later."""
    await _add_linkifier(db, "taken", 1)
    insert = 'INSERT INTO linkifier (pattern, url_template, "order") VALUES (?, ?, ?)'
    async with db.write() as tx:
        with pytest.raises(IntegrityError):
            await tx.execute(insert, ("taken", "https://example.com/{id}", 2))
        await tx.execute(insert, ("first-kept", "https://example.com/{id}", 3))
        with pytest.raises(IntegrityError):
            await tx.execute(insert, ("taken", "https://example.com/{id}", 4))
        await tx.execute(insert, ("second-kept", "https://example.com/{id}", 5))
    assert await _linkifiers(db) == ["taken", "first-kept", "second-kept"]


async def test_rows_by_index_and_name_and_new_ids(db: BaseDatabase) -> None:
    first = await _add_linkifier(db, "a", 1)
    second = await _add_linkifier(db, "b", 2)
    assert second > first > 0
    async with db.read() as conn:
        row = await conn.fetchone(
            'SELECT id, pattern, "order" FROM linkifier WHERE id = ?', (second,)
        )
        tuples = await conn.fetchall_tuples("SELECT id FROM linkifier ORDER BY id")
    assert row is not None and row[0] == row["id"] == second and row["pattern"] == "b"
    assert tuples == [(first,), (second,)]
    async with db.write() as tx:
        changed = await tx.execute_rowcount('UPDATE linkifier SET "order" = "order" + 10')
    assert changed == 2


async def test_an_integer_beyond_64_bits_is_an_overflow_error(db: BaseDatabase) -> None:
    """Both backends refuse it the same way (the app answers "Integer out of range")."""
    async with db.read() as conn:
        with pytest.raises(OverflowError):
            await conn.fetchone("SELECT id FROM linkifier WHERE id = ?", (2**70,))


async def test_our_commits_bump_watched_versions_after_commit(db: BaseDatabase) -> None:
    before = db.versions()
    assert before is not None
    async with db.write() as tx:
        await tx.execute(
            'INSERT INTO linkifier (pattern, url_template, "order") VALUES (?, ?, ?)',
            ("v", "https://example.com/{id}", 1),
        )
    after = db.versions()
    assert after is not None
    assert after["linkifier"] > before["linkifier"]
    assert after["users"] == before["users"]  # an untouched table keeps its version


async def test_cancelled_reads_and_writes_leave_connections_usable(db: BaseDatabase) -> None:
    """A request that goes away mid-transaction must not leave a connection busy or inside a
    transaction, nor commit half a body."""

    async def read_once() -> None:
        async with db.read() as conn:
            await conn.fetchone("SELECT count(*) FROM linkifier")

    async def write_once(n: int) -> None:
        async with db.write() as tx:
            await tx.execute(
                'INSERT INTO linkifier (pattern, url_template, "order") VALUES (?, ?, ?)',
                (f"c{n}", "https://example.com/{id}", n),
            )
            await tx.execute(
                'INSERT INTO linkifier (pattern, url_template, "order") VALUES (?, ?, ?)',
                (f"c{n}-second", "https://example.com/{id}", n),
            )

    for delay_steps in range(16):
        for work in (read_once, lambda n=delay_steps: write_once(n)):
            task = asyncio.create_task(work())
            for _ in range(delay_steps):
                await asyncio.sleep(0)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    await read_once()
    await write_once(100)
    patterns = set(await _linkifiers(db))
    assert {"c100", "c100-second"} <= patterns
    for pattern in patterns:  # every body committed whole or not at all
        assert (pattern.removesuffix("-second") in patterns) and (
            pattern.removesuffix("-second") + "-second" in patterns
        )


async def test_acknowledged_writes_are_committed(target: str) -> None:
    """Once write() returns, another connection (a fresh Database) sees the change."""
    where = target if target.startswith("postgresql") else Path(target)
    first = open_database(where)
    await first.open()
    try:
        await asyncio.gather(*(_add_linkifier(first, f"d{i}", i) for i in range(20)))
        second = open_database(where)
        await second.open()
        try:
            assert len(await _linkifiers(second)) == 20
        finally:
            await second.close()
    finally:
        await first.close()


async def test_another_process_commit_invalidates_cached_versions(postgres: PostgresServer) -> None:
    """Two PostgreSQL stores on one database (as two server processes): a change committed by
    one bumps the other's version of that table through LISTEN/NOTIFY, quickly."""
    url = postgres.new_database("notify")
    one, two = open_database(url), open_database(url)
    await one.open()
    await two.open()
    try:
        before = two.versions()
        assert before is not None
        await _add_linkifier(one, "elsewhere", 1)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            now = two.versions()
            if now is not None and now["linkifier"] > before["linkifier"]:
                break
            await asyncio.sleep(0.005)
        else:
            raise AssertionError("the other store never heard of the commit")
        assert now["users"] == before["users"]
    finally:
        await one.close()
        await two.close()


@pytest.fixture(scope="module")
def pg_server(postgres: PostgresServer, tmp_path_factory: pytest.TempPathFactory) -> ServerProcess:
    url = postgres.new_database("walk")
    proc = ServerProcess(tmp_path_factory.mktemp("pg"), database_url=url).start()
    yield proc  # type: ignore[misc]
    proc.stop()


def test_server_on_postgresql_walk_through_http(pg_server: ServerProcess) -> None:
    assert "Created a new organization in postgresql://" in pg_server.first_output
    owner = Api(pg_server.url, pg_server.owner_email, pg_server.owner_key)
    email = "walker@example.com"
    assert_success(owner.post("/users", email=email, password="pw-walk-123", full_name="Walker"))
    key = assert_success(
        Api(pg_server.url).post("/fetch_api_key", username=email, password="pw-walk-123")
    )["api_key"]
    walker = Api(pg_server.url, email, key)
    name = unique_name("pg")
    subscribe(owner, name, principals=[user_id(owner), user_id(walker)])
    queue = Queue(
        walker, event_types=["message", "reaction", "update_message", "update_message_flags"]
    )

    sent = owner.ok("POST", "/messages", type="stream", to=name, topic="pg", content="hello **pg**")
    message_id = int(sent["id"])
    [event] = queue.of_type("message")
    assert event["message"]["id"] == message_id
    assert event["message"]["content"] == "hello **pg**"  # raw: apply_markdown is off

    fetched = walker.ok(
        "GET", "/messages", anchor="newest", num_before=5, num_after=0,
        narrow=[{"operator": "channel", "operand": name}],
    )["messages"]  # fmt: skip
    assert fetched[-1]["id"] == message_id and "read" not in fetched[-1]["flags"]

    walker.ok("POST", "/messages/flags", messages=[message_id], op="add", flag="read")
    [flag_event] = queue.of_type("update_message_flags")
    assert flag_event["messages"] == [message_id] and flag_event["flag"] == "read"

    walker.ok("POST", f"/messages/{message_id}/reactions", emoji_name="thumbs_up")
    [reaction] = queue.of_type("reaction")
    assert reaction["op"] == "add" and reaction["message_id"] == message_id
    duplicate = walker.post(f"/messages/{message_id}/reactions", emoji_name="thumbs_up")
    assert duplicate.status_code == 400 and duplicate.json()["code"] == "REACTION_ALREADY_EXISTS"

    owner.ok("PATCH", f"/messages/{message_id}", content="edited on postgres")
    [edit] = queue.of_type("update_message")
    assert edit["message_id"] == message_id and "edited on postgres" in edit["content"]

    found = walker.ok(
        "GET", "/messages", anchor="newest", num_before=5, num_after=0,
        narrow=[{"operator": "search", "operand": "edited"}],
    )["messages"]  # fmt: skip
    assert [m["id"] for m in found] == [message_id]
    assert walker.ok(
        "GET", "/messages", anchor="newest", num_before=5, num_after=0,
        narrow=[{"operator": "search", "operand": "hello"}],
    )["messages"] == []  # fmt: skip
    message = walker.ok("GET", f"/messages/{message_id}")["message"]
    assert "read" in message["flags"] and message["reactions"][0]["emoji_name"] == "thumbs_up"
    assert message["edit_history"][0]["prev_content"] == "hello **pg**"


def user_id(api: Api) -> int:
    return int(api.ok("GET", "/users/me")["user_id"])


async def test_only_a_write_that_changed_rows_says_the_disk_has_space(db: BaseDatabase) -> None:
    """A store that saw a full disk forgets it after a commit that wrote something. A write
    that changed no row writes nothing to PostgreSQL's log and commits even on a full disk,
    so it proves nothing (SQLite counts the rows changed)."""
    await _add_linkifier(db, "first", 1)
    db.disk_full_since = time.time()
    async with db.write() as tx:
        await tx.execute("DELETE FROM linkifier WHERE pattern = ?", ("nothing like it",))
        await tx.execute("UPDATE linkifier SET pattern = pattern WHERE 1 = 0")
    assert db.disk_full_since is not None
    await _add_linkifier(db, "second", 2)
    assert db.disk_full_since is None
