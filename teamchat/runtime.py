"""Runtime: the one object actions receive (database, broker, settings, clock, limiters,
the upload store)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

import msgspec

from teamchat.config import Settings, bind_url
from teamchat.events.broker import EventBroker, RecordingBroker
from teamchat.events.shared import SharedBroker
from teamchat.lib.outbound import OutboundClient, OutboundPolicy
from teamchat.lib.password_guard import PasswordGuard
from teamchat.lib.ratelimit import RateLimiter
from teamchat.records import UserRow
from teamchat.store import change_log, server_settings
from teamchat.store.backends import open_database
from teamchat.store.blobs import AsyncBlobs, open_blob_store
from teamchat.store.conn import BaseDatabase, ChangeWatcher

RESET_EMAILS_PER_HOUR = 3
RESET_REQUESTS_PER_CLIENT_HOUR = 30


class Runtime:
    def __init__(
        self,
        db: BaseDatabase,
        broker: EventBroker,
        settings: Settings,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.broker = broker
        self.settings = settings
        self.clock = clock
        # Our URL, for every link that leaves a request's answer (emails, push, bot messages,
        # invitations, anything stored): the configured one, else the one `serve` pinned
        # (set by `open`), else the bind address. Never a request's Host header.
        self.external_url = settings.external_url or bind_url(settings.host, settings.port)
        self.api_limiter = RateLimiter(
            settings.api_rate_limit.max_requests, settings.api_rate_limit.window_secs, clock
        )
        # Password verifications per account and per client IP (actions/people/password_checks).
        self.password_guard = PasswordGuard(
            (settings.auth_rate_limit.max_requests, settings.auth_rate_limit.window_secs),
            (settings.login_ip_rate_limit.max_requests, settings.login_ip_rate_limit.window_secs),
            clock,
        )
        # Password reset emails per address (zulip-compat: Zulip allows a couple an hour).
        self.reset_email_limiter = RateLimiter(RESET_EMAILS_PER_HOUR, 3600, clock)
        # ... and per client (the answer is an email to any address typed: not a spam relay).
        self.reset_client_limiter = RateLimiter(RESET_REQUESTS_PER_CLIENT_HOUR, 3600, clock)

        # (API email, API key) -> (the store's users+realm version it was read at, the user):
        # successful authentications only, see actions/people/auth.py.
        self.auth_cache: dict[tuple[str, str], tuple[int, UserRow]] = {}
        # Every HTTP request the server makes to another host goes through this client.
        self.outbound = OutboundClient(
            OutboundPolicy(
                allow_private=settings.outbound_allow_private,
                allowed_networks=settings.outbound_allowed_networks,
            ),
            max_connections=settings.outbound_max_connections,
            max_per_sender=settings.outbound_max_per_sender,
        )
        # Where upload bytes go when not in the database (actions/upload_bytes.py).
        blob_store = open_blob_store(
            settings.uploads,
            s3_endpoint_url=settings.s3_endpoint_url,
            s3_region=settings.s3_region,
        )
        self.blobs = AsyncBlobs(blob_store) if blob_store is not None else None
        # Work started by actions that outlives their request (outgoing webhooks).
        self.background: set[asyncio.Task[None]] = set()

    def now(self) -> int:
        """UTC epoch seconds, as stored and sent on the wire."""
        return int(self.clock())

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` in the background; `close` cancels what is still running."""
        task = asyncio.get_running_loop().create_task(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    @classmethod
    async def open(
        cls,
        settings: Settings,
        broker: EventBroker | None = None,
        clock: Callable[[], float] = time.time,
        *,
        bulk: bool = False,
    ) -> Runtime:
        db = open_database(
            settings.db_url or settings.db_path, settings.reader_connections, bulk=bulk
        )
        await db.open()
        if broker is None:
            options: dict[str, Any] = {
                "heartbeat_secs": settings.heartbeat_secs,
                "heartbeat_jitter_secs": settings.heartbeat_jitter_secs,
                "idle_timeout_secs": settings.queue_idle_timeout_secs,
                "max_idle_timeout_secs": settings.queue_max_idle_timeout_secs,
                "process": settings.process,
            }
            # A database several server processes can share carries each one's events to
            # the others (PostgreSQL: LISTEN/NOTIFY); a SQLite file has one server process.
            bus = db.bus()
            if bus is not None:
                broker = SharedBroker(time.monotonic, bus, **options)
            else:
                broker = EventBroker(time.monotonic, **options)
        rt = cls(db, broker, settings, clock)
        if not settings.external_url:
            async with db.read() as conn:
                pinned = await server_settings.get_external_url(conn)
            rt.external_url = pinned or rt.external_url
        return rt

    @classmethod
    async def open_offline(cls, settings: Settings) -> Runtime:
        """A runtime for CLI commands: same database, a broker that records its events;
        `close` leaves them in the change log for a running server to publish. A command
        may load or rebuild much at once (the import), so the store works in `bulk` mode."""
        return await cls.open(settings, broker=RecordingBroker(), bulk=True)

    def watcher(self) -> ChangeWatcher:
        """A watcher of other connections' commits to our database (not yet opened)."""
        return self.db.watcher(self.settings.change_poll_interval_secs)

    async def flush_change_log(self) -> None:
        """Write what a RecordingBroker recorded to the change log (one transaction)."""
        if not isinstance(self.broker, RecordingBroker):
            return
        records = self.broker.take()
        if not records:
            return
        entries = [
            (kind, msgspec.json.encode(payload).decode(), msgspec.json.encode(audience).decode())
            for kind, payload, audience in records
        ]
        async with self.db.write() as tx:
            await change_log.append(tx, entries, self.clock())

    async def close(self) -> None:
        for task in list(self.background):
            task.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)
        self.outbound.close()
        if self.blobs is not None:
            await self.blobs.close()
        try:
            await self.flush_change_log()
        finally:
            await self.db.close()
