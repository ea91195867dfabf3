"""Emoji reactions: POST and DELETE /messages/{id}/reactions.

Three namespaces: `unicode_emoji` (codes from the emoji data), `realm_emoji` (custom emoji
ids) and `zulip_extra_emoji` (SPEC's `service_extra_emoji`, accepted as an alias; clients
only decode the Zulip name). Events: `reaction` add/remove to everyone who can see the
message.
"""

from __future__ import annotations

import msgspec

from teamchat.actions.messages.message_common import access_message
from teamchat.actions.org.emoji_checks import (
    UNICODE,
    check_emoji,
    emoji_for_name,
    normalize_reaction_type,
)
from teamchat.errors import ReactionDoesNotExistError, ZulipError
from teamchat.events import rules_messages  # noqa: F401 (registers message event rules)
from teamchat.events.types_messages import ReactionAddEvent, ReactionRemoveEvent, ReactionUser
from teamchat.lib import emoji, wire
from teamchat.lib import flags as fl
from teamchat.records import MessageRow, ReactionRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import message_flags as flag_store
from teamchat.store import reactions as reaction_store
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store.conn import IntegrityError
from teamchat.store.db import Conn, Tx


class ReactionAlreadyExistsError(ZulipError):
    code = "REACTION_ALREADY_EXISTS"

    def __init__(self) -> None:
        super().__init__("Reaction already exists.")


async def audience(conn: Conn, message: MessageRow) -> list[int]:
    """Who sees changes to the message: its recipients, plus readers of a shared history."""
    ids = set(await flag_store.message_user_ids(conn, message.id))
    if message.stream_id is not None:
        stream = await stream_store.get_stream_by_id(conn, message.stream_id)
        if stream is not None and stream.history_public_to_subscribers:
            ids |= set((await sub_store.subscriber_ids(conn, [stream.id])).get(stream.id, []))
    return sorted(ids)


async def check_add_reaction(
    rt: Runtime,
    user: UserRow,
    message_id: int,
    name: str,
    code: str | None,
    reaction_type: str | None,
) -> None:
    """Add a reaction; joining someone's existing reaction reuses its emoji name."""
    reaction_type = normalize_reaction_type(reaction_type)
    async with rt.db.read() as conn:
        message, flags = await access_message(conn, user, message_id)
        if code is None or reaction_type is None:
            code, reaction_type = await emoji_for_name(conn, name)
        if await reaction_store.find_reaction(conn, message.id, user.id, reaction_type, code):
            raise ReactionAlreadyExistsError()
        existing = await reaction_store.find_any_reaction(conn, message.id, reaction_type, code)
        if existing is not None:
            name = existing.emoji_name
        else:
            await check_emoji(conn, name, code, reaction_type)
    reaction = ReactionRow(
        message_id=message.id,
        user_id=user.id,
        emoji_name=name,
        emoji_code=code,
        reaction_type=reaction_type,
    )
    await do_add_reaction(rt, user, message, reaction, historical=flags is None)


async def do_add_reaction(
    rt: Runtime, user: UserRow, message: MessageRow, reaction: ReactionRow, *, historical: bool
) -> None:
    """Store the reaction (and a historical row if the user never received the message)."""
    try:
        async with rt.db.write() as tx:
            if historical:
                await flag_store.add_user_messages(tx, [user.id], [message.id], fl.HISTORICAL_FLAGS)
            await reaction_store.insert(tx, reaction)
            await _publish(rt, tx, user, message, reaction, add=True)
    except IntegrityError:
        raise ReactionAlreadyExistsError() from None


async def check_remove_reaction(
    rt: Runtime,
    user: UserRow,
    message_id: int,
    name: str | None,
    code: str | None,
    reaction_type: str | None,
) -> None:
    """Remove the user's reaction, found by code (or by name with the current mapping)."""
    reaction_type = normalize_reaction_type(reaction_type)
    async with rt.db.read() as conn:
        message, _ = await access_message(conn, user, message_id)
        if code is None:
            if name is None:
                raise ZulipError(
                    "At least one of the following arguments must be present:"
                    " emoji_name, emoji_code"
                )
            code, looked_up_type = await emoji_for_name(conn, name)
            reaction_type = reaction_type or looked_up_type
        reaction_type = reaction_type or UNICODE
        if reaction_type == UNICODE and not emoji.is_valid_codepoint(code):
            raise ZulipError("Invalid emoji code.")
        reaction = await reaction_store.find_reaction(
            conn, message.id, user.id, reaction_type, code
        )
    if reaction is None:
        raise ReactionDoesNotExistError()
    await do_remove_reaction(rt, user, message, reaction)


async def do_remove_reaction(
    rt: Runtime, user: UserRow, message: MessageRow, reaction: ReactionRow
) -> None:
    """Delete the reaction; send reaction/remove to everyone who can see the message."""
    async with rt.db.write() as tx:
        await reaction_store.delete(tx, reaction)
        await _publish(rt, tx, user, message, reaction, add=False)


async def _publish(
    rt: Runtime, tx: Tx, user: UserRow, message: MessageRow, reaction: ReactionRow, *, add: bool
) -> None:
    realm = await realm_store.get_realm(tx)
    assert realm is not None
    fields = msgspec.structs.asdict(reaction)
    fields["user"] = ReactionUser(
        user_id=user.id, email=wire.api_email(user, realm.host), full_name=user.full_name
    )
    event = ReactionAddEvent(**fields) if add else ReactionRemoveEvent(**fields)
    payload = msgspec.to_builtins(event)
    receivers = await audience(tx, message)
    tx.after_commit(lambda: rt.broker.publish(payload, receivers))
