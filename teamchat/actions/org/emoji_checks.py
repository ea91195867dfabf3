"""Emoji lookups shared by reactions and user status: Zulip's get_emoji_data and
check_emoji_request, over Unicode, custom (realm) and Zulip's extra emoji."""

from __future__ import annotations

from teamchat.actions.org import realm_emoji
from teamchat.errors import ZulipError
from teamchat.lib import emoji
from teamchat.lib.integers import is_ascii_digits
from teamchat.store.db import Conn

UNICODE, REALM, EXTRA = "unicode_emoji", "realm_emoji", "zulip_extra_emoji"
# zulip-compat: SPEC renames zulip_extra_emoji to service_extra_emoji; both are accepted and
# clients are always sent the Zulip name, which their decoders know.
REACTION_TYPE_ALIASES = {"service_extra_emoji": EXTRA}
REACTION_TYPES = (UNICODE, REALM, EXTRA)


def normalize_reaction_type(reaction_type: str | None) -> str | None:
    """The stored reaction type (the SPEC alias mapped), or Zulip's "Invalid emoji type."."""
    if reaction_type is None:
        return None
    reaction_type = REACTION_TYPE_ALIASES.get(reaction_type, reaction_type)
    if reaction_type not in REACTION_TYPES:
        raise ZulipError("Invalid emoji type.")
    return reaction_type


async def emoji_for_name(conn: Conn, name: str) -> tuple[str, str]:
    """(emoji_code, reaction_type) for a name: custom emoji first (Zulip's get_emoji_data)."""
    custom = await realm_emoji.get_active_realm_emoji_by_name(conn, name)
    if custom is not None:
        return str(custom.id), REALM
    if name in emoji.ZULIP_EXTRA_EMOJI:
        return emoji.ZULIP_EXTRA_EMOJI[name], EXTRA
    code = emoji.name_to_codepoint(name)
    if code is None:
        raise ZulipError(f"Emoji '{name}' does not exist")
    return code, UNICODE


async def check_emoji(conn: Conn, name: str, code: str, reaction_type: str) -> None:
    """Zulip's check_emoji_request: the code exists in its namespace and matches the name."""
    if reaction_type == REALM:
        custom = None
        if is_ascii_digits(code):
            custom = await realm_emoji.get_realm_emoji_by_id(conn, int(code))
        if custom is None:
            raise ZulipError("Invalid custom emoji.")
        if custom.name != name:
            raise ZulipError("Invalid custom emoji name.")
        if custom.deactivated:
            raise ZulipError("This custom emoji has been deactivated.")
        return
    if reaction_type == EXTRA:
        if code not in emoji.ZULIP_EXTRA_EMOJI.values():
            raise ZulipError("Invalid emoji code.")
        if emoji.ZULIP_EXTRA_EMOJI.get(name) != code:
            raise ZulipError("Invalid emoji name.")
        return
    if reaction_type != UNICODE:
        raise ZulipError("Invalid emoji type.")
    if not emoji.is_valid_codepoint(code):
        raise ZulipError("Invalid emoji code.")
    if emoji.name_to_codepoint(name) != code:
        raise ZulipError("Invalid emoji name.")
