"""The server's periodic work: scheduled messages and reminders, message retention,
missed-message emails, marking long-absent people idle, and the thumbnails of images that
have none yet.

Each begins START_DELAY_SECS after the server starts, and its module (with the send path,
Markdown and rendering it imports) is imported then: a start does not pay for them before
its first answer. Every loop logs its failures and carries on (see each `run_*`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from teamchat.config import Settings
from teamchat.events.broker import cancel_task
from teamchat.lib.lazy import lazy_module
from teamchat.runtime import Runtime

if TYPE_CHECKING:
    from teamchat.actions.messages import retention, thumbnails
    from teamchat.actions.notifications import missed_emails
    from teamchat.actions.people import idle_users
    from teamchat.actions.scheduling import delivery
else:
    delivery = lazy_module("teamchat.actions.scheduling.delivery")
    retention = lazy_module("teamchat.actions.messages.retention")
    missed_emails = lazy_module("teamchat.actions.notifications.missed_emails")
    idle_users = lazy_module("teamchat.actions.people.idle_users")
    thumbnails = lazy_module("teamchat.actions.messages.thumbnails")

START_DELAY_SECS = 1.0


class Background:
    """The periodic tasks of one server process: `start` them, `stop` them at shutdown."""

    def __init__(self, rt: Runtime, settings: Settings) -> None:
        self.rt = rt
        self.settings = settings
        self.tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        rt, settings = self.rt, self.settings
        works: list[Callable[[], Awaitable[None]]] = [
            lambda: _thumbnails(rt),
            lambda: delivery.run_scheduler(rt, settings.scheduler_interval_secs),
            lambda: retention.run_retention(rt, settings.retention_interval_secs),
            lambda: missed_emails.run_missed_emails(rt, settings.scheduler_interval_secs),
            lambda: idle_users.run_idle_marking(
                rt, settings.idle_check_interval_secs, settings.idle_after_days
            ),
        ]
        self.tasks = [asyncio.create_task(_after_start(work)) for work in works]

    async def stop(self) -> None:
        for task in reversed(self.tasks):
            await cancel_task(task)
        self.tasks = []


async def _after_start(work: Callable[[], Awaitable[None]]) -> None:
    await asyncio.sleep(START_DELAY_SECS)
    await work()


async def _thumbnails(rt: Runtime) -> None:
    """Thumbnails a stopped server left unfinished, then those of images from before
    thumbnails existed (in the background: its work outlives this task's start)."""
    await thumbnails.resume_pending(rt)
    rt.spawn(thumbnails.backfill_images(rt))
