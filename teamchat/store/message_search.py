"""Narrow queries: resolved narrow terms to SQL over `message` (m) and `user_message` (um),
and the anchored windows GET /messages reads.

Two shapes: the user's own messages (driven by the user_message primary key or a partial
index), or a channel's whole history (driven by the message recipient index) with the user's
flags joined when they have them. A `search` term drives the query from the FTS5 index.
"""

from __future__ import annotations

import msgspec

from teamchat.lib import flags as fl
from teamchat.lib.messages import RESOLVED_TOPIC_PREFIX
from teamchat.store.db import Conn, Tx


class Term(msgspec.Struct, frozen=True):
    """One resolved narrow term; `kind` names the SQL it becomes."""

    kind: str
    value: object = None
    negated: bool = False


class Query(msgspec.Struct, frozen=True, kw_only=True):
    user_id: int
    terms: tuple[Term, ...]
    # Read the channel's history (message table) instead of the user's rows.
    include_history: bool = False


def _ids(values: object) -> str:
    assert isinstance(values, list | tuple | set | frozenset)
    return ",".join(str(int(v)) for v in values) or "NULL"


def _flags(history: bool) -> str:
    # Channel history rows without a user_message row read as read + historical.
    return f"coalesce(um.flags, {fl.HISTORICAL_FLAGS})" if history else "um.flags"


def _term_sql(term: Term, user_id: int, history: bool) -> tuple[str, list[object]]:
    kind, value = term.kind, term.value
    simple: dict[str, tuple[str, list[object]]] = {
        "recipient": ("m.recipient_id = ?", [value]),
        "topic": ("m.topic = ?", [value]),
        "sender": ("m.sender_id = ?", [value]),
        "id": ("m.id = ?", [value]),
        "has_link": ("m.has_link = 1", []),
        "has_image": ("m.has_image = 1", []),
        "has_attachment": ("m.has_attachment = 1", []),
        "has_reaction": ("EXISTS (SELECT 1 FROM reaction r WHERE r.message_id = m.id)", []),
        "resolved": ("m.topic LIKE ? ESCAPE '\\'", [RESOLVED_TOPIC_PREFIX + "%"]),
        "nothing": ("FALSE", []),
    }
    if kind in simple:
        sql, params = simple[kind]
    elif kind in ("flag_set", "flag_unset"):
        # Literal bits (not parameters), so SQLite can use the partial flag indexes.
        test = "!=" if kind == "flag_set" else "="
        sql, params = f"({_flags(history)} & {int(str(value))}) {test} 0", []
    elif kind == "recipients":
        sql, params = f"m.recipient_id IN ({_ids(value)})", []
    elif kind == "dm_including":
        sql = (
            "m.stream_id IS NULL AND m.recipient_id IN"
            " (SELECT recipient_id FROM direct_message_member WHERE user_id = ?)"
        )
        params = [value]
    elif kind == "topic_policy":
        sql = (
            "EXISTS (SELECT 1 FROM user_topic ut WHERE ut.user_id = ?"
            " AND ut.stream_id = m.stream_id AND ut.topic_name = m.topic"
            " AND ut.visibility_policy = ?)"
        )
        params = [user_id, value]
    elif kind == "search":
        sql, params = "m.id IN (SELECT rowid FROM message_fts WHERE message_fts MATCH ?)", [value]
    else:
        raise AssertionError(kind)
    if term.negated:
        return f"NOT ({sql})", params
    return sql, params


def _driving_search(query: Query) -> Term | None:
    """The first positive search term: the query is then driven by the FTS index."""
    return next((t for t in query.terms if t.kind == "search" and not t.negated), None)


# Terms a message index (recipient_id, id) or (sender_id, id) answers in id order.
_MESSAGE_INDEXED = frozenset({"recipient", "sender"})
# Terms a partial user_message index answers (flags & bit tested as a literal).
_FLAG_INDEXED = frozenset({"flag_set", "flag_unset"})


def _user_rows_id_column(query: Query) -> str:
    """The id column of the user's-rows shape, named after the index that should drive it.

    SQLite does not carry `um.message_id = m.id` into ORDER BY: ordered by the other table's
    column, a conversation or sender narrow reads the whole conversation and sorts it.
    A flag term keeps its partial user_message index (starred, unread: usually far fewer
    rows than the conversation); otherwise a recipient or sender term drives from the
    message table's index.
    """
    positive = {t.kind for t in query.terms if not t.negated}
    if positive & _MESSAGE_INDEXED and not positive & _FLAG_INDEXED:
        return "m.id"
    return "um.message_id"


def _base(query: Query) -> tuple[str, list[object], str]:
    """FROM ... WHERE (without the anchor bound), its parameters, and the id column."""
    driver = _driving_search(query)
    clauses, params = [], []
    for term in query.terms:
        if term is driver:
            continue
        sql, term_params = _term_sql(term, query.user_id, query.include_history)
        clauses.append(sql)
        params += term_params
    where = " AND ".join(clauses) or "TRUE"
    um_join = (
        "LEFT JOIN user_message um ON um.message_id = m.id AND um.user_id = ?"
        if query.include_history
        else "JOIN user_message um ON um.message_id = m.id AND um.user_id = ?"
    )
    if driver is not None:
        from_sql = (
            f"FROM message_fts f JOIN message m ON m.id = f.rowid {um_join}"
            f" WHERE message_fts MATCH ? AND {where}"
        )
        return from_sql, [query.user_id, driver.value, *params], "f.rowid"
    if query.include_history:
        return f"FROM message m {um_join} WHERE {where}", [query.user_id, *params], "m.id"
    from_sql = (
        "FROM user_message um JOIN message m ON m.id = um.message_id"
        f" WHERE um.user_id = ? AND {where}"
    )
    return from_sql, [query.user_id, *params], _user_rows_id_column(query)


async def fetch_window(
    conn: Conn, query: Query, *, start: int, descending: bool, limit: int
) -> list[tuple[int, int | None]]:
    """(message id, flags or None) for up to `limit` matches from `start` (inclusive) on."""
    if limit <= 0:
        return []
    from_sql, params, id_column = _base(query)
    op, order = ("<=", "DESC") if descending else (">=", "ASC")
    sql = (
        f"SELECT m.id, um.flags {from_sql} AND {id_column} {op} ?"
        f" ORDER BY {id_column} {order} LIMIT ?"
    )
    rows = await conn.fetchall(sql, (*params, start, limit))
    return [(int(r[0]), None if r[1] is None else int(r[1])) for r in rows]


async def first_unread(conn: Conn, query: Query) -> int | None:
    """The oldest unread message matching the query, if any."""
    unread = Query(
        user_id=query.user_id,
        terms=(*query.terms, Term("flag_unset", fl.READ)),
        include_history=False,
    )
    rows = await fetch_window(conn, unread, start=0, descending=False, limit=1)
    return rows[0][0] if rows else None


async def fetch_ids(
    conn: Conn, query: Query, message_ids: list[int]
) -> list[tuple[int, int | None]]:
    """(id, flags or None) of the given messages that match the query, by id."""
    from_sql, params, _ = _base(query)
    rows = await conn.fetchall(
        f"SELECT m.id, um.flags {from_sql} AND m.id IN ({_ids(message_ids)}) ORDER BY m.id",
        tuple(params),
    )
    return [(int(r[0]), None if r[1] is None else int(r[1])) for r in rows]


async def optimize_index(tx: Tx) -> None:
    """Merge the search index into one segment (after a bulk load: every message inserted
    in its own batch leaves segments that each search reads, newest-first most of all)."""
    await tx.execute("INSERT INTO message_fts (message_fts) VALUES ('optimize')")
