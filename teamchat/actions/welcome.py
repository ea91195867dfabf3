"""The welcome a new member gets: a direct message from the realm's Welcome Bot, then the
custom welcome text (the invitation's, else the organization's) when there is one.
"""

from __future__ import annotations

from teamchat.actions.message_send import SendRequest, check_send_message
from teamchat.actions.system_bots import WELCOME_BOT, ensure_system_bot
from teamchat.lib import realm_settings
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store

WELCOME_CLIENT = "Internal"


def welcome_text(realm_name: str) -> str:
    return (
        f"Hello, and welcome to **{realm_name}**! :wave:\n\n"
        "Messages are organized into channels and topics; direct messages like this one "
        "are private to the people in them. Say hello to your new colleagues!"
    )


async def ensure_welcome_bot(rt: Runtime) -> UserRow:
    """The realm's Welcome Bot (a system bot, created the first time it is needed)."""
    return await ensure_system_bot(rt, WELCOME_BOT)


async def send_welcome_messages(
    rt: Runtime, user: UserRow, custom_text: str | None, *, realm_url: str
) -> None:
    """Direct messages from the Welcome Bot. SPEC: `custom_text` null means the organization's
    default text; an empty string means no custom welcome message."""
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
    assert realm is not None
    bot = await ensure_welcome_bot(rt)
    if not bot.is_active:
        return
    if custom_text is None:
        custom_text = realm_settings.load(realm.settings_json).welcome_message_custom_text
    for content in (welcome_text(realm.name), custom_text):
        if content.strip():
            request = SendRequest(
                recipient_type="private",
                to=[user.id],
                topic=None,
                content=content,
                client=WELCOME_CLIENT,
                realm_url=realm_url,
                read_by_sender=True,
            )
            await check_send_message(rt, bot, request)
