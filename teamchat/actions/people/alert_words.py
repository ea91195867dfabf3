"""Alert words: adding and removing them (case-insensitively), `alert_words` events and state.

Message sending reads them (store.alert_words.words_by_user) to set `has_alert_word`.
"""

from __future__ import annotations

from teamchat.actions.state import StateContext, state_fetcher
from teamchat.events.types_people import AlertWordsEvent
from teamchat.lib.text import check_text
from teamchat.records import UserRow
from teamchat.runtime import Runtime
from teamchat.store import alert_words as words_store

MAX_ALERT_WORD_CHARS = 100


@state_fetcher("alert_words")
async def _alert_words_state(ctx: StateContext) -> None:
    ctx.state["alert_words"] = await words_store.list_words(ctx.conn, ctx.user.id)


async def get_alert_words(rt: Runtime, user: UserRow) -> list[str]:
    """The user's alert words, in the order they were added."""
    async with rt.db.read() as conn:
        return await words_store.list_words(conn, user.id)


def clean_alert_words(words: list[str]) -> list[str]:
    """Strip, drop empty words; each may be at most 100 characters (Zulip's limits)."""
    for index, word in enumerate(words):
        check_text(f"alert_words[{index}]", word, max_chars=MAX_ALERT_WORD_CHARS)
    return [word.strip() for word in words if word.strip()]


async def do_add_alert_words(rt: Runtime, user: UserRow, words: list[str]) -> list[str]:
    """Add words not already present in any case; send alert_words; return the list."""
    async with rt.db.write() as tx:
        existing = {word.lower() for word in await words_store.list_words(tx, user.id)}
        new: dict[str, str] = {}
        for word in words:
            if word.lower() not in existing:
                new[word.lower()] = word
        await words_store.add_words(tx, user.id, list(new.values()))
        result = await words_store.list_words(tx, user.id)
        event = AlertWordsEvent(alert_words=result)
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))
    return result


async def do_remove_alert_words(rt: Runtime, user: UserRow, words: list[str]) -> list[str]:
    """Remove words matching in any case; send alert_words; return the list."""
    lowered = {word.lower() for word in words}
    async with rt.db.write() as tx:
        current = await words_store.list_words(tx, user.id)
        await words_store.delete_words(tx, user.id, [w for w in current if w.lower() in lowered])
        result = await words_store.list_words(tx, user.id)
        event = AlertWordsEvent(alert_words=result)
        tx.after_commit(lambda: rt.broker.publish(event, [user.id]))
    return result
