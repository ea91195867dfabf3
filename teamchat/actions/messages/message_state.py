"""Register state about messages: max_message_id (unread state etc. follow with the flags)."""

from __future__ import annotations

from teamchat.actions.state import StateContext, state_fetcher
from teamchat.store import messages as message_store


@state_fetcher("message")
async def _max_message_id_state(ctx: StateContext) -> None:
    ctx.state["max_message_id"] = await message_store.max_user_message_id(ctx.conn, ctx.user.id)
