"""Running the app: one uvicorn worker (one process, one writer, one in-memory broker),
shared by `serve` and `sandbox`."""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn

from teamchat.cli.connection_guard import Limits, guarded_protocol, usable_connection_cap
from teamchat.config import Settings
from teamchat.lib import logsafe

# One format for every server's log (serve, serve --dev, sandbox): access lines included.
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def install_logging(settings: Settings) -> None:
    """Send our, uvicorn's and Litestar's logs, access lines included, to stderr."""
    logsafe.install(settings.log_level, LOG_FORMAT)


def site_url(settings: Settings) -> str:
    if settings.external_url:
        return settings.external_url.rstrip("/")
    host = "127.0.0.1" if settings.host in {"0.0.0.0", "::", ""} else settings.host
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{settings.port}"


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

    async def _serve(self, sockets: Any = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super()._serve(sockets)
        # A requested shutdown that completed is a clean exit (status 0), not a re-raised signal.
        self._captured_signals.clear()

    _loop: asyncio.AbstractEventLoop | None = None


def run_server(settings: Settings) -> None:
    """Serve `settings.db_path` until SIGINT/SIGTERM."""
    from teamchat.app import create_app, with_access_log

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
    config.http = guarded_protocol(limits, config.forwarded_allow_ips)
    TeamchatServer(config, litestar_app).run()
