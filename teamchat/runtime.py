"""Runtime: the one object actions receive (database, broker, settings, clock, limiters)."""

from __future__ import annotations

import time
from collections.abc import Callable

from teamchat.config import Settings
from teamchat.events.broker import EventBroker, NullBroker
from teamchat.lib.ratelimit import RateLimiter
from teamchat.store.db import Database


class Runtime:
    def __init__(
        self,
        db: Database,
        broker: EventBroker,
        settings: Settings,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.broker = broker
        self.settings = settings
        self.clock = clock
        self.api_limiter = RateLimiter(
            settings.api_rate_limit.max_requests, settings.api_rate_limit.window_secs, clock
        )
        # Password failures per account (log-in and the old-password check) and per client IP.
        self.auth_limiter = RateLimiter(
            settings.auth_rate_limit.max_requests, settings.auth_rate_limit.window_secs, clock
        )
        self.login_ip_limiter = RateLimiter(
            settings.login_ip_rate_limit.max_requests,
            settings.login_ip_rate_limit.window_secs,
            clock,
        )

    def now(self) -> int:
        """UTC epoch seconds, as stored and sent on the wire."""
        return int(self.clock())

    @classmethod
    async def open(cls, settings: Settings, broker: EventBroker | None = None) -> Runtime:
        db = Database(settings.db_path, readers=settings.reader_connections)
        await db.open()
        if broker is None:
            broker = EventBroker(
                time.monotonic,
                heartbeat_secs=settings.heartbeat_secs,
                heartbeat_jitter_secs=settings.heartbeat_jitter_secs,
                idle_timeout_secs=settings.queue_idle_timeout_secs,
                max_idle_timeout_secs=settings.queue_max_idle_timeout_secs,
            )
        return cls(db, broker, settings)

    @classmethod
    async def open_offline(cls, settings: Settings) -> Runtime:
        """A runtime for CLI commands: same database, a broker that reaches no client."""
        return await cls.open(settings, broker=NullBroker())

    async def close(self) -> None:
        await self.db.close()
