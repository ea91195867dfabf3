"""POST /submessage: votes, options and tasks attached to `/poll` and `/todo` messages, and
the `submessage` events that carry them to everyone who has the message.

Zulip's rules: the first submessage on a message comes from its sender; later ones from any
reader; a poll's question and a list's title change only by the widget's author.
"""

from __future__ import annotations

import msgspec

from teamchat.actions.messages.message_common import access_message
from teamchat.actions.state import MAX_MESSAGE_LENGTH
from teamchat.errors import ZulipError
from teamchat.events.types_messages import SubmessageEvent
from teamchat.lib import widgets
from teamchat.records import MessageRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import message_flags as flag_store
from teamchat.store import submessages as submessage_store
from teamchat.store.db import Conn

MAX_MSG_TYPE_LENGTH = 100


def _check_lengths(msg_type: str, content: str) -> None:
    if len(msg_type) > MAX_MSG_TYPE_LENGTH:
        raise ZulipError(f"msg_type is too long (limit: {MAX_MSG_TYPE_LENGTH} characters)")
    if len(content) > MAX_MESSAGE_LENGTH:
        raise ZulipError(f"content is too long (limit: {MAX_MESSAGE_LENGTH} characters)")


async def _check_sender(conn: Conn, message: MessageRow, user: UserRow) -> None:
    """Zulip's verify_submessage_sender: the message's sender starts the conversation."""
    if message.sender_id == user.id:
        return
    if not await submessage_store.has_from(conn, message.id, message.sender_id):
        raise ZulipError("You cannot attach a submessage to this message.")


async def _check_widget_data(conn: Conn, message: MessageRow, user: UserRow, data: object) -> None:
    widget = await submessage_store.first_widget(conn, message.id)
    widget_type = None
    if widget is not None:
        try:
            widget_type = msgspec.json.decode(widget.content).get("widget_type")
        except (msgspec.DecodeError, AttributeError):
            widget_type = None
    is_author = message.sender_id == user.id
    try:
        if widget_type == "poll":
            widgets.check_poll_data(data, is_author=is_author)
        elif widget_type == "todo":
            widgets.check_todo_data(data, is_author=is_author)
    except widgets.WidgetError as error:
        raise ZulipError(str(error)) from None


async def check_add_submessage(
    rt: Runtime, user: UserRow, message_id: int, msg_type: str, content: str
) -> None:
    """Attach a submessage and send `submessage` to everyone who has the message."""
    _check_lengths(msg_type, content)
    try:
        data = msgspec.json.decode(content)
    except msgspec.DecodeError:
        raise ZulipError("Invalid json for submessage") from None
    async with rt.db.write() as tx:
        message, _ = await access_message(tx, user, message_id)
        await _check_sender(tx, message, user)
        await _check_widget_data(tx, message, user, data)
        row = await submessage_store.insert(tx, message.id, user.id, msg_type, content)
        audience = await flag_store.message_user_ids(tx, message.id)
        event = SubmessageEvent(
            msg_type=row.msg_type,
            content=row.content,
            message_id=row.message_id,
            submessage_id=row.id,
            sender_id=row.sender_id,
        )
        tx.after_commit(lambda: rt.broker.publish(event, audience))
