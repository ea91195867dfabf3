"""Running the app: one uvicorn worker (one process, one writer, one in-memory broker),
shared by `serve` and `sandbox`."""

from __future__ import annotations

import asyncio
import errno
import gc
import socket
from typing import Any

import uvicorn

from teamchat.cli.connection_guard import Limits, guarded_protocol, usable_connection_cap
from teamchat.config import Settings, bind_url
from teamchat.lib import logsafe
from teamchat.store.backup import ServerLock

# The cyclic garbage collector's first threshold once the server is up (CPython's default is
# 700 new container objects): a fan-out to a thousand long-polls allocates that many in a
# moment, and every collection traverses what is still young.
GC_YOUNG_THRESHOLD = 10_000

# One format for every server's log (serve, serve --dev, sandbox): access lines included.
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def install_logging(settings: Settings) -> None:
    """Send our, uvicorn's and Litestar's logs, access lines included, to stderr."""
    logsafe.install(settings.log_level, LOG_FORMAT)


def site_url(settings: Settings) -> str:
    """The given external URL, else the bind address (`sandbox`; `serve` pins its URL)."""
    if settings.external_url:
        return settings.external_url.rstrip("/")
    return bind_url(settings.host, settings.port)


class TeamchatServer(uvicorn.Server):
    """uvicorn, plus: on SIGINT/SIGTERM finish every waiting long-poll at once."""

    def __init__(self, config: uvicorn.Config, app: Any) -> None:
        super().__init__(config)
        self.litestar_app = app

    def handle_exit(self, sig: int, frame: Any) -> None:
        super().handle_exit(sig, frame)
        rt = getattr(self.litestar_app.state, "rt", None)
        loop = self._loop
        if rt is not None and loop is not None:
            loop.call_soon_threadsafe(rt.broker.shutdown)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        settle_garbage_collector()

    async def _serve(self, sockets: Any = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super()._serve(sockets)
        # A requested shutdown that completed is a clean exit (status 0), not a re-raised signal.
        self._captured_signals.clear()

    _loop: asyncio.AbstractEventLoop | None = None


def settle_garbage_collector() -> None:
    """Once started: move everything alive (modules, the app, caches) out of the collector's
    sight, and collect the young generation less often. A full collection then no longer
    walks every object imported at start (34 ms each, down to 4 ms), and the fan-out to
    1,000 listeners spent 5-6% of its CPU in the collector, against well under 1% after."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


class PortUnavailableError(Exception):
    """The address and port to serve on cannot be bound."""


def bind_socket(settings: Settings) -> socket.socket:
    """Bind the address and port to serve on (before anything is created), as uvicorn would."""
    where = f"{settings.host}:{settings.port}"
    try:
        infos = socket.getaddrinfo(
            settings.host, settings.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except (socket.gaierror, UnicodeError) as exc:
        raise PortUnavailableError(f"cannot listen on {where}: unknown address ({exc})") from None
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortUnavailableError(
                f"cannot listen on {where}: the port is in use (another server?); "
                "choose another one with --port"
            ) from None
        raise PortUnavailableError(f"cannot listen on {where}: {exc.strerror}") from None
    return sock


class SharedDatabase:
    """The server "lock" of a PostgreSQL database: none, several servers may share one."""

    def acquire(self) -> None:
        return None

    def release(self) -> None:
        return None


def claim(settings: Settings) -> tuple[socket.socket, ServerLock | SharedDatabase]:
    """Bind the port, then take the database's server lock, before anything is created: a busy
    port or a database another server holds raises PortUnavailableError or LockError."""
    sock = bind_socket(settings)
    lock = SharedDatabase() if settings.db_url else ServerLock(settings.db_path)
    try:
        lock.acquire()
    except BaseException:
        sock.close()
        raise
    return sock, lock


def run_server(settings: Settings, sock: socket.socket | None = None) -> None:
    """Serve `settings.db_path` until SIGINT/SIGTERM (on `sock` when bound already)."""
    from teamchat.app import create_app, poll_lane, with_access_log
    from teamchat.cli.poll_connection import PollingHttpProtocol

    litestar_app = create_app(settings)
    config = uvicorn.Config(
        with_access_log(litestar_app),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=False,
        lifespan="on",
        ws="none",  # no websockets: skips importing a websocket implementation at start
        timeout_graceful_shutdown=5,
        timeout_keep_alive=settings.keep_alive_timeout_secs,
        log_config=None,
    )
    limits = Limits(
        header_timeout_secs=settings.header_timeout_secs,
        body_timeout_secs=settings.body_timeout_secs,
        max_connections=usable_connection_cap(settings.max_connections),
        max_connections_per_ip=settings.max_connections_per_ip,
    )
    config.http = guarded_protocol(
        limits,
        config.forwarded_allow_ips,
        PollingHttpProtocol,
        poll_lane=poll_lane(litestar_app),
    )
    TeamchatServer(config, litestar_app).run(sockets=None if sock is None else [sock])
