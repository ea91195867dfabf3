"""The welcome a new member gets: a direct message from the realm's Welcome Bot, then the
custom welcome text (the invitation's, else the organization's) when there is one; and the
Notification Bot's note to a referrer who asked to hear when the invitation was accepted.
"""

from __future__ import annotations

from teamchat.actions.messages.message_send import (
    SendRequest,
    check_send_message,
    internal_request,
)
from teamchat.actions.org.permissions import require_realm_admin
from teamchat.actions.org.system_bots import NOTIFICATION_BOT, WELCOME_BOT, ensure_system_bot
from teamchat.lib import realm_settings
from teamchat.lib.realm_properties import MAX_WELCOME_MESSAGE_CUSTOM_TEXT_CHARS
from teamchat.lib.text import check_text
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store


def welcome_text(realm_name: str) -> str:
    """The Welcome Bot's first message."""
    return (
        f"Hello, and welcome to **{realm_name}**! :wave:\n\n"
        "Messages are organized into channels and topics; direct messages like this one "
        "are private to the people in them. Say hello to your new colleagues!"
    )


async def _send_dm(rt: Runtime, bot: UserRow, to: UserRow, content: str, realm_url: str) -> None:
    if not bot.is_active or not to.is_active:
        return
    await check_send_message(rt, bot, _dm_request(to, content, realm_url))


def _dm_request(to: UserRow, content: str, realm_url: str) -> SendRequest:
    return internal_request("private", [to.id], None, content, realm_url)


async def notify_referrer(rt: Runtime, referrer: UserRow, user: UserRow, *, realm_url: str) -> None:
    """Zulip's "accepted your invitation" note, from the Notification Bot."""
    bot = await ensure_system_bot(rt, NOTIFICATION_BOT)
    content = (
        f"@_**{user.full_name}|{user.id}** accepted your invitation to join this organization!"
    )
    await _send_dm(rt, bot, referrer, content, realm_url)


async def check_test_welcome_message(
    rt: Runtime, admin: UserRow, text: str, *, realm_url: str
) -> int:
    """POST /realm/test_welcome_bot_custom_message: the Welcome Bot sends `text` to the
    administrator, as a new member would get it; return the message id."""
    require_realm_admin(admin)
    check_text(
        "welcome_message_custom_text", text, max_chars=MAX_WELCOME_MESSAGE_CUSTOM_TEXT_CHARS,
        multiline=True,
    )  # fmt: skip
    bot = await ensure_system_bot(rt, WELCOME_BOT)
    sent = await check_send_message(rt, bot, _dm_request(admin, text, realm_url))
    return sent.id


async def send_welcome_messages(
    rt: Runtime, user: UserRow, custom_text: str | None, *, realm_url: str
) -> None:
    """Direct messages from the Welcome Bot. SPEC: `custom_text` null means the organization's
    default text; an empty string means no custom welcome message."""
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
    assert realm is not None
    bot = await ensure_system_bot(rt, WELCOME_BOT)
    if custom_text is None:
        custom_text = realm_settings.load(realm.settings_json).welcome_message_custom_text
    for content in (welcome_text(realm.name), custom_text):
        if content.strip():
            await _send_dm(rt, bot, user, content, realm_url)
