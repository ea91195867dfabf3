"""Reading messages: GET /messages (narrows and anchors) and GET /messages/{id}.

Narrow terms are resolved here (channel names, emails, conversations) into store terms;
`teamchat.store.message_search` turns them into SQL.
"""

from __future__ import annotations

import re

import msgspec

from teamchat.actions.channels.channel_access import can_access_history
from teamchat.actions.messages import message_common as common
from teamchat.actions.people.users import find_user_by_email
from teamchat.errors import ZulipError
from teamchat.lib import flags as fl
from teamchat.lib import search_highlight as highlight
from teamchat.lib.api_types import JsonDict
from teamchat.lib.integers import is_ascii_digits
from teamchat.lib.message_wire import ClientView
from teamchat.lib.messages import LARGER_THAN_MAX_MESSAGE_ID, MAX_MESSAGES_PER_FETCH
from teamchat.lib.narrow import NarrowTerm
from teamchat.records import RealmRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import message_search as search
from teamchat.store import messages as message_store
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import users as user_store
from teamchat.store.db import Conn


class BadNarrowOperatorError(ZulipError):
    code = "BAD_NARROW"

    def __init__(self, desc: str) -> None:
        super().__init__(f"Invalid narrow operator: {desc}", desc=desc)


class Anchor(msgspec.Struct, frozen=True, kw_only=True):
    """GET /messages window: an id or "newest"/"oldest"/"first_unread"."""

    value: int | str
    num_before: int
    num_after: int
    include_anchor: bool = True


_IS_FLAGS = {
    "starred": ("flag_set", fl.STARRED),
    "mentioned": ("flag_set", fl.ANY_MENTION),
    "alerted": ("flag_set", fl.HAS_ALERT_WORD),
    "unread": ("flag_unset", fl.READ),
    "dm": ("flag_set", fl.IS_PRIVATE),
}
_HAS = {"link": "has_link", "image": "has_image", "attachment": "has_attachment",
        "reaction": "has_reaction"}  # fmt: skip
_SEARCH_TOKEN = re.compile(r'"([^"]+)"|(\w+)', re.UNICODE)


def fts_query(text: str) -> str | None:
    """The user's search text as an FTS5 query: quoted phrases and words, all required."""
    parts = []
    for phrase, word in _SEARCH_TOKEN.findall(text):
        token = phrase or word
        words = re.findall(r"\w+", token, re.UNICODE)
        if words:
            parts.append('"' + " ".join(words) + '"')
    return " AND ".join(parts) or None


async def _user_operand(conn: Conn, operand: object) -> UserRow | None:
    if isinstance(operand, int):
        return await user_store.get_user_by_id(conn, operand)
    if isinstance(operand, str):
        return await find_user_by_email(conn, operand.strip())
    return None


async def _dm_user_ids(conn: Conn, operand: object) -> list[int]:
    if isinstance(operand, str):
        items: list[object] = [e for e in operand.split(",") if e.strip()]
    elif isinstance(operand, list):
        items = list(operand)
    elif isinstance(operand, int):
        items = [operand]
    else:
        raise BadNarrowOperatorError("unknown user")
    ids = []
    for item in items:
        user = await _user_operand(conn, item)
        if user is None:
            raise BadNarrowOperatorError(f"unknown user in {operand}")
        ids.append(user.id)
    return ids


async def _stream_term(conn: Conn, operand: object, negated: bool) -> search.Term:
    if isinstance(operand, str) and is_ascii_digits(operand):
        operand = int(operand)
    stream = (
        await stream_store.get_stream_by_id(conn, operand)
        if isinstance(operand, int)
        else await stream_store.get_stream_by_name(conn, str(operand))
    )
    if stream is None:
        raise BadNarrowOperatorError(f"unknown channel {operand}")
    return search.Term("recipient", stream.recipient_id, negated)


async def _channels_term(conn: Conn, user: UserRow, term: NarrowTerm) -> search.Term:
    if term.operand not in ("public", "web-public"):
        raise BadNarrowOperatorError(f"unknown channels operand {term.operand}")
    streams = await stream_store.list_streams(conn)
    if term.operand == "public":
        ids = [s.recipient_id for s in streams if s.is_public and not s.is_archived]
    else:
        ids = [s.recipient_id for s in streams if s.is_web_public]
    return search.Term("recipients", ids, term.negated)


async def _sender_term(conn: Conn, user: UserRow, term: NarrowTerm) -> search.Term:
    sender = user if term.operand == "me" else await _user_operand(conn, term.operand)
    if sender is None:
        raise BadNarrowOperatorError(f"unknown user {term.operand}")
    return search.Term("sender", sender.id, term.negated)


async def _dm_term(conn: Conn, user: UserRow, term: NarrowTerm) -> search.Term:
    ids = await _dm_user_ids(conn, term.operand)
    recipient_id = await message_store.get_dm_recipient_id(conn, {*ids, user.id})
    if recipient_id is None:
        return search.Term("nothing", None, term.negated)
    return search.Term("recipient", recipient_id, term.negated)


async def _dm_including_term(conn: Conn, user: UserRow, term: NarrowTerm) -> search.Term:
    other = await _user_operand(conn, term.operand)
    if other is None:
        raise BadNarrowOperatorError(f"unknown user {term.operand}")
    return search.Term("dm_including", other.id, term.negated)


async def _has_term(conn: Conn, user: UserRow, term: NarrowTerm) -> search.Term:
    if term.operand not in _HAS:
        raise BadNarrowOperatorError(f"unknown 'has' operand {term.operand}")
    return search.Term(_HAS[str(term.operand)], None, term.negated)


async def _id_term(conn: Conn, user: UserRow, term: NarrowTerm) -> search.Term:
    operand = term.operand
    if not (isinstance(operand, int) or (isinstance(operand, str) and is_ascii_digits(operand))):
        raise BadNarrowOperatorError(f"invalid message ID {operand}")
    return search.Term("id", int(operand), term.negated)


async def _channel_term(conn: Conn, user: UserRow, term: NarrowTerm) -> search.Term:
    return await _stream_term(conn, term.operand, term.negated)


async def resolve_term(conn: Conn, user: UserRow, term: NarrowTerm) -> search.Term | None:
    """One narrow term as a store term (None: the term does not filter, like `near`)."""
    op, operand, negated = term.operator, term.operand, term.negated
    if op == "topic":
        return search.Term("topic", str(operand), negated)
    if op == "is":
        return _is_term(operand, negated)
    if op == "search":
        query = fts_query(str(operand))
        return search.Term("search", query, negated) if query else None
    if op in ("near", "with"):
        return None
    resolver = _RESOLVERS.get(op)
    if resolver is None:
        raise BadNarrowOperatorError(f"unknown operator {op}")
    return await resolver(conn, user, term)


_RESOLVERS = {
    "channel": _channel_term,
    "channels": _channels_term,
    "sender": _sender_term,
    "dm": _dm_term,
    "dm-including": _dm_including_term,
    "has": _has_term,
    "id": _id_term,
}


def _is_term(operand: object, negated: bool) -> search.Term:
    operand = "dm" if operand == "private" else operand
    if operand in _IS_FLAGS:
        kind, bits = _IS_FLAGS[str(operand)]
        return search.Term(kind, bits, negated)
    if operand == "followed":
        return search.Term("topic_policy", 3, negated)
    if operand == "muted":
        return search.Term("topic_policy", 1, negated)
    if operand == "resolved":
        return search.Term("resolved", None, negated)
    raise BadNarrowOperatorError(f"unknown 'is' operand {operand}")


async def _apply_with(conn: Conn, user: UserRow, narrow: list[NarrowTerm]) -> list[NarrowTerm]:
    """Zulip's `with`: narrow to the conversation that contains the given message."""
    term = next((t for t in narrow if t.operator == "with"), None)
    if term is None:
        return narrow
    try:
        message, _ = await common.access_message(conn, user, int(str(term.operand)))
    except (ZulipError, ValueError):
        return narrow
    keep = [t for t in narrow if t.operator not in ("with", "channel", "topic", "dm")]
    if message.stream_id is not None:
        return [*keep, NarrowTerm("channel", message.stream_id), NarrowTerm("topic", message.topic)]
    participants = (await message_store.dm_participants(conn, [message.recipient_id]))[
        message.recipient_id
    ]
    others = [uid for uid in participants if uid != user.id] or [user.id]
    return [*keep, NarrowTerm("dm", others)]


async def build_query(conn: Conn, user: UserRow, narrow: list[NarrowTerm]) -> search.Query:
    """The store query for a narrow, with history when Zulip's ok_to_include_history says so."""
    narrow = await _apply_with(conn, user, narrow)
    terms = [t for t in [await resolve_term(conn, user, term) for term in narrow] if t]
    include_history = False
    for term in narrow:
        if term.operator == "channel" and not term.negated:
            include_history = await _history_access(conn, user, term.operand)
        elif term.operator == "channels" and term.operand == "public" and not term.negated:
            include_history = not user.is_guest
    if any(t.operator == "is" and t.operand not in ("resolved", "followed") for t in narrow):
        include_history = False
    return search.Query(user_id=user.id, terms=tuple(terms), include_history=include_history)


async def _history_access(conn: Conn, user: UserRow, operand: object) -> bool:
    if isinstance(operand, str) and is_ascii_digits(operand):
        operand = int(operand)
    stream = (
        await stream_store.get_stream_by_id(conn, operand)
        if isinstance(operand, int)
        else await stream_store.get_stream_by_name(conn, str(operand))
    )
    if stream is None:
        return False
    sub = await sub_store.get_subscription(conn, user.id, stream.id)
    return can_access_history(user, stream, sub is not None and sub.active)


def check_anchor_window(anchor: Anchor) -> None:
    """Zulip's checks on num_before, num_after and include_anchor."""
    if anchor.num_before < 0:
        raise ZulipError("num_before is too small")
    if anchor.num_after < 0:
        raise ZulipError("num_after is too small")
    if anchor.num_before + anchor.num_after > MAX_MESSAGES_PER_FETCH:
        raise ZulipError(f"Too many messages requested (maximum {MAX_MESSAGES_PER_FETCH}).")
    if not anchor.include_anchor and anchor.num_before > 0 and anchor.num_after > 0:
        raise ZulipError("The anchor can only be excluded at an end of the range")


async def get_messages(
    rt: Runtime, user: UserRow, narrow: list[NarrowTerm], anchor: Anchor, view: ClientView
) -> JsonDict:
    """GET /messages: the anchored window of the narrow, with Zulip's found_* flags."""
    check_anchor_window(anchor)
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        query = await build_query(conn, user, narrow)
        anchor_id = await _anchor_id(conn, query, anchor.value)
        rows, found = await _window(conn, query, anchor, anchor_id)
        messages = await _load(conn, realm, user, rows, view, narrow)
    return {"messages": messages, "anchor": anchor_id, **found, "history_limited": False}


async def get_messages_by_id(
    rt: Runtime, user: UserRow, narrow: list[NarrowTerm], message_ids: list[int], view: ClientView
) -> JsonDict:
    """GET /messages with `message_ids`: those the user may see that match the narrow."""
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        query = await build_query(conn, user, narrow)
        if not query.include_history:
            # Messages of public channels the user never received are readable too.
            history = msgspec.structs.replace(query, include_history=True)
            rows = await search.fetch_ids(conn, history, message_ids)
            rows = [r for r in rows if await _readable(conn, user, r)]
        else:
            rows = await search.fetch_ids(conn, query, message_ids)
        messages = await _load(conn, realm, user, rows, view, narrow)
    return {"messages": messages, "history_limited": False}


async def _readable(conn: Conn, user: UserRow, row: tuple[int, int | None]) -> bool:
    if row[1] is not None:
        return True
    try:
        await common.access_message(conn, user, row[0])
    except ZulipError:
        return False
    return True


async def window_ids(
    conn: Conn, user: UserRow, narrow: list[NarrowTerm], anchor: Anchor
) -> tuple[dict[str, bool], list[int]]:
    """(found_* flags, message ids) of the anchored window of a narrow."""
    query = await build_query(conn, user, narrow)
    anchor_id = await _anchor_id(conn, query, anchor.value)
    rows, found = await _window(conn, query, anchor, anchor_id)
    return found, [r[0] for r in rows]


async def _anchor_id(conn: Conn, query: search.Query, value: int | str) -> int:
    if value == "newest":
        return LARGER_THAN_MAX_MESSAGE_ID
    if value == "oldest":
        return 0
    if value == "first_unread":
        first = await search.first_unread(conn, query)
        return first if first is not None else LARGER_THAN_MAX_MESSAGE_ID
    assert isinstance(value, int)
    return value


async def _window(
    conn: Conn, query: search.Query, anchor: Anchor, anchor_id: int
) -> tuple[list[tuple[int, int | None]], dict[str, bool]]:
    """Zulip's limit_query_to_range + post_process_limited_query."""
    to_left = anchor_id == 0
    to_right = anchor_id == LARGER_THAN_MAX_MESSAGE_ID
    num_before, num_after, include = anchor.num_before, anchor.num_after, anchor.include_anchor
    need_before, need_after = not to_left and num_before > 0, not to_right and num_after > 0
    fetch = search.fetch_window
    if need_before and need_after:
        rows = await fetch(conn, query, start=anchor_id - 1, descending=True, limit=num_before)
        rows += await fetch(conn, query, start=anchor_id, descending=False, limit=num_after + 1)
    elif need_before:
        limit = num_before + (0 if to_right else int(include))
        start = anchor_id - int(not include)
        rows = await fetch(conn, query, start=start, descending=True, limit=limit)
    elif need_after:
        start = anchor_id + int(not include)
        rows = await fetch(conn, query, start=start, descending=False, limit=num_after + include)
    else:
        rows = await fetch(conn, query, start=anchor_id, descending=True, limit=int(include))
        rows = [r for r in rows if r[0] == anchor_id]
    rows = sorted(rows)
    if to_right:
        before_rows, anchor_rows, after_rows = rows, [], []
    else:
        before_rows = [r for r in rows if r[0] < anchor_id]
        anchor_rows = [r for r in rows if r[0] == anchor_id]
        after_rows = [r for r in rows if r[0] > anchor_id]
    if num_before:
        before_rows = before_rows[-num_before:]
    if num_after:
        after_rows = after_rows[:num_after]
    found = {
        "found_anchor": len(anchor_rows) == 1,
        "found_oldest": to_left or len(before_rows) < num_before,
        "found_newest": to_right or len(after_rows) < num_after,
    }
    return [*before_rows, *anchor_rows, *after_rows], found


async def _load(
    conn: Conn,
    realm: RealmRow,
    user: UserRow,
    rows: list[tuple[int, int | None]],
    view: ClientView,
    narrow: list[NarrowTerm],
) -> list[JsonDict]:
    messages = await message_store.list_messages(conn, [r[0] for r in rows])
    flags = {mid: bits for mid, bits in rows if bits is not None}
    objects = await common.messages_for_viewer(conn, realm, user, messages, flags, view)
    stems = highlight.search_terms(narrow)
    if stems is not None:
        for message, obj in zip(messages, objects, strict=True):
            obj.update(highlight.search_matches(message, stems))
    return objects


async def get_message(
    rt: Runtime, user: UserRow, message_id: int, view: ClientView
) -> tuple[str, JsonDict]:
    """GET /messages/{id}: (raw content, message object) or "Invalid message(s)"."""
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        assert realm is not None
        message, bits = await common.access_message(conn, user, message_id)
        flags = {} if bits is None else {message.id: bits}
        [obj] = await common.messages_for_viewer(conn, realm, user, [message], flags, view)
    return message.content, obj
