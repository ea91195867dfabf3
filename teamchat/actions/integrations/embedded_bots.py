"""Embedded bots: a bot of type 4 runs one of the `zulip_bots` bots (its service name, with
the configuration stored for it) inside this server. When @-mentioned in a channel or sent a
direct message (by a person), the bot's handler runs in a separate process
(`embedded_runner`, killed after RUN_TIMEOUT_SECS) and what it asks for is done as the bot:
replies in the same conversation, messages, reactions, edits of its own messages, and its
storage (the bot storage API). A failing bot only costs its owner a notice.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from typing import Any

import msgspec

from teamchat.actions.integrations.triggers import triggered_bots
from teamchat.actions.messages.message_deliver import Delivered, send_hook
from teamchat.actions.messages.message_edit import EditRequest, check_update_message
from teamchat.actions.messages.message_send import SendRequest, check_send_message
from teamchat.actions.messages.reactions import check_add_reaction
from teamchat.actions.people.bot_storage import do_update_storage
from teamchat.errors import ZulipError
from teamchat.lib.api_types import JsonDict
from teamchat.records import BotType, StreamRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store import bot_storage as storage_store
from teamchat.store import bots as bots_store
from teamchat.store.db import Tx

log = logging.getLogger("teamchat.embedded_bots")
RUN_TIMEOUT_SECS = 10.0
MAX_OUTPUT_BYTES = 1024 * 1024
CLIENT = "EmbeddedBotServer"
RUNNER = "teamchat.actions.integrations.embedded_runner"


class Job(msgspec.Struct, frozen=True, kw_only=True):
    bot: UserRow
    service: str
    request: JsonDict  # what the runner reads
    stream: StreamRow | None
    topic: str
    participant_ids: list[int]
    realm_url: str


@send_hook
async def _on_send(rt: Runtime, tx: Tx, sent: Delivered) -> None:
    draft = sent.draft
    called = await triggered_bots(
        tx, sent.sender, draft.stream, sorted(draft.rendered.mentioned_user_ids),
        draft.participant_ids, BotType.EMBEDDED,
    )  # fmt: skip
    if not called:
        return
    configs = await bots_store.get_configs(tx)
    message = {**sent.message, "content": draft.content, "content_type": "text/x-markdown"}
    jobs = []
    for bot, trigger in called:
        services = await bots_store.list_services(tx, bot.id)
        if not services:
            continue
        request: JsonDict = {
            "bot": services[0].name, "config": configs.get(bot.id, {}), "trigger": trigger,
            "user": {"user_id": bot.id, "email": bot.delivery_email, "full_name": bot.full_name},
            "message": message, "storage": await storage_store.get_entries(tx, bot.id),
        }  # fmt: skip
        jobs.append(Job(
            bot=bot, service=services[0].name, request=request, stream=draft.stream,
            topic=draft.topic, participant_ids=draft.participant_ids, realm_url=draft.realm_url,
        ))  # fmt: skip
    if jobs:
        tx.after_commit(lambda: _start(rt, jobs))


def _start(rt: Runtime, jobs: list[Job]) -> None:
    for job in jobs:
        rt.spawn(run_bot(rt, job))


async def _run_process(job: Job) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", RUNNER,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        out, err = await asyncio.wait_for(
            process.communicate(json.dumps(job.request).encode()), RUN_TIMEOUT_SECS
        )
    except TimeoutError:
        process.kill()
        await process.wait()
        raise ZulipError(f"the bot did not answer within {RUN_TIMEOUT_SECS:g} seconds") from None
    if process.returncode != 0:
        last = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise ZulipError(f"the bot failed: {last[0][:500]}")
    result = json.loads(out[:MAX_OUTPUT_BYTES])
    if not isinstance(result, dict):
        raise ZulipError("the bot's answer is not an object")
    return result


async def run_bot(rt: Runtime, job: Job) -> None:
    """Run the bot on the message and do what it asked for, as the bot."""
    try:
        result = await _run_process(job)
        for action in result.get("actions", []):
            await _apply(rt, job, action)
        changed = result.get("storage", {})
        if isinstance(changed, dict) and changed:
            await do_update_storage(rt, job.bot, {str(k): str(v) for k, v in changed.items()})
    except (ZulipError, ValueError, KeyError, TypeError) as error:
        reason = error.msg if isinstance(error, ZulipError) else repr(error)
        log.info("embedded bot %s (%s) failed: %s", job.bot.id, job.service, reason)


def _reply(job: Job, content: str, widget: str | None) -> SendRequest:
    to: int | list[int] = list(job.participant_ids)
    kind = "private"
    if job.stream is not None:
        kind, to = "stream", job.stream.id
    return SendRequest(
        recipient_type=kind, to=to, topic=job.topic if job.stream else None, content=content,
        client=CLIENT, realm_url=job.realm_url, internal=True, widget_content=widget,
    )  # fmt: skip


def _message(job: Job, message: dict[str, Any]) -> SendRequest:
    kind = "stream" if message.get("type") == "stream" else "private"
    to = message["to"]
    if kind == "private" and isinstance(to, str):
        to = [to]
    return SendRequest(
        recipient_type=kind, to=to, topic=message.get("topic", message.get("subject")),
        content=str(message["content"]), client=CLIENT, realm_url=job.realm_url, internal=True,
    )  # fmt: skip


async def _apply(rt: Runtime, job: Job, action: dict[str, Any]) -> None:
    kind = action.get("kind")
    if kind == "reply":
        await check_send_message(
            rt, job.bot, _reply(job, str(action["content"]), action.get("widget"))
        )
    elif kind == "send":
        await check_send_message(rt, job.bot, _message(job, action["message"]))
    elif kind == "react":
        await check_add_reaction(
            rt, job.bot, int(action["message_id"]), str(action["emoji"]), None, None
        )
    elif kind == "update":
        update = action["message"]
        edit = EditRequest(content=str(update["content"]), realm_url=job.realm_url)
        await check_update_message(rt, job.bot, int(update["message_id"]), edit)
