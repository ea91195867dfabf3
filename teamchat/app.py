"""create_app(settings) -> Litestar: routes, dependency injection, lifespan, error envelope.

The only composition root. Handlers live in teamchat.http.*; this module wires them up.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from litestar import Litestar, Request, Response
from litestar.di import Provide
from litestar.exceptions import HTTPException
from litestar.plugins import PluginProtocol
from litestar.types import (
    ASGIApp,
    LifeSpanReceive,
    LifeSpanScope,
    LifeSpanSend,
    Message,
    Receive,
    ReceiveMessage,
    Scope,
    Send,
)

from teamchat.actions.messages import external_images, hook_modules
from teamchat.actions.ops.background import Background
from teamchat.actions.ops.change_feed import ChangeFeed
from teamchat.actions.ops.realm_export.exports import fail_interrupted_exports
from teamchat.config import Settings
from teamchat.errors import (
    DiskFullError,
    MethodNotAllowedError,
    PayloadTooLargeError,
    ResourceNotFoundError,
    ZulipError,
)
from teamchat.events.broker import cancel_task
from teamchat.http import event_polls, html, lean
from teamchat.http.areas import AreaRoutes
from teamchat.http.auth import json_to_api, provide_runtime, provide_user, route_takes
from teamchat.http.params import Params
from teamchat.http.poll_lane import PollLane
from teamchat.lib.disk_full import is_disk_full
from teamchat.lib.integers import foreign_digit_values
from teamchat.lib.log_throttle import ThrottledLog
from teamchat.lib.logsafe import escape_controls
from teamchat.runtime import Runtime
from teamchat.store.backup import run_periodic_backups

log = logging.getLogger("teamchat")
access_log = logging.getLogger("teamchat.access")
disk_full_log = ThrottledLog(log)  # a full disk fails every write: one line a minute


class ClientDisconnected(Exception):
    """The client went away while its request was being read (an abandoned body)."""


# nginx's "client closed request": never sent (nobody is listening), only logged.
CLIENT_CLOSED_REQUEST = 499


def error_response(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """Every error as Zulip's JSON envelope; unexpected ones are logged and answered 500.
    A browser asking for a page we do not have gets an HTML page instead."""
    if isinstance(exc, ClientDisconnected):
        # The access log's line for this request (status 499) is the only trace.
        return Response(b"", status_code=CLIENT_CLOSED_REQUEST)
    if not isinstance(exc, ZulipError):
        exc = _as_zulip_error(exc)
    if exc.http_status == 404 and html.wants_html_not_found(request):
        return html.not_found_page(request)
    return Response(exc.envelope(), status_code=exc.http_status, headers=dict(exc.headers))


_METHOD_ORDER = ["GET", "POST", "PUT", "PATCH", "DELETE"]


def _as_zulip_error(exc: Exception) -> ZulipError:
    if is_disk_full(exc):
        # Nothing was stored; the client retries. GET /health says so too.
        disk_full_log.warning("a write failed: the disk is full (%s)", exc)
        return DiskFullError()
    if isinstance(exc, OverflowError):
        # An integer beyond SQLite's 64 bits (e.g. in a path or a JSON value) names nothing.
        return ZulipError("Integer out of range")
    if isinstance(exc, UnicodeDecodeError | RecursionError):
        # Input no parser caught (bytes that are not UTF-8, nesting past the stack): a client
        # error, so one warning line instead of a traceback.
        log.warning("refused malformed input: %s", type(exc).__name__)
        return ZulipError("Malformed request")
    if isinstance(exc, HTTPException):
        status = exc.status_code
        if status == 404:
            return ResourceNotFoundError("Not Found")
        if status == 405:
            allow = (exc.headers or {}).get("allow", "")
            # Litestar adds HEAD and OPTIONS handlers of its own; Zulip names only its routes'.
            methods = {m.strip() for m in allow.split(",")} - {"", "HEAD", "OPTIONS"}
            # Litestar's order varies from run to run; Zulip's routes list theirs in this one.
            return MethodNotAllowedError(sorted(methods, key=_METHOD_ORDER.index))
        if status == 413:
            return PayloadTooLargeError("Request body too large")
        if 400 <= status < 500:
            error = ZulipError(str(exc.detail) or "Bad request")
            error.http_status = status  # type: ignore[misc]
            return error
    log.exception("unhandled error", exc_info=exc)
    error = ZulipError("Internal server error")
    error.code = "INTERNAL_SERVER_ERROR"  # type: ignore[misc]
    error.http_status = 500  # type: ignore[misc]
    return error


def poll_lane(app: Litestar) -> PollLane:
    """The lane answering `app`'s plain long-polls on their connections (once it started)."""
    return PollLane(app.state)


def with_access_log(app: ASGIApp) -> ASGIApp:
    """Wrap the whole app (unmatched routes too): one info line per request."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # type: ignore[comparison-overlap]
            await app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        async def receive_wrapper() -> ReceiveMessage:
            message = await receive()
            # Before the answer starts, only the request's body is read; later, a streamed
            # answer listens for the disconnect itself.
            if message["type"] == "http.disconnect" and status == 0:
                raise ClientDisconnected()
            return message

        try:
            await app(scope, receive_wrapper, send_wrapper)
        finally:
            if access_log.isEnabledFor(logging.INFO):
                state = scope.get("state", {})
                access_log.info(
                    "%s %s %s %.1fms user=%s%s",
                    escape_controls(str(scope.get("method", ""))),
                    escape_controls(scope["path"]),
                    status,
                    (time.perf_counter() - started) * 1000,
                    escape_controls(str(state.get("user_email", "-"))),
                    " long-poll" if state.get("longpoll") else " lean" if state.get("lean") else "",
                )

    return middleware


class TeamchatLitestar(Litestar):
    """Litestar without its pydantic and attrs plugins: we use neither (msgspec only), and
    importing pydantic's plugin alone took about a third of a second of every start-up.
    Each area's routes are registered on the first request that could reach them
    (http/areas.py)."""

    areas: AreaRoutes

    @staticmethod
    def _get_default_plugins(plugins: list[PluginProtocol]) -> list[PluginProtocol]:
        from litestar.plugins.core import MsgspecDIPlugin

        plugins.append(MsgspecDIPlugin())
        return plugins

    async def __call__(
        self,
        scope: Scope | LifeSpanScope,
        receive: Receive | LifeSpanReceive,
        send: Send | LifeSpanSend,
    ) -> None:
        if scope["type"] == "http":  # type: ignore[comparison-overlap]
            if (
                scope["path"] == event_polls.PATH
                and scope.get("method") == "GET"
                and await event_polls.answer_poll(self.state.rt, scope, send)  # type: ignore[arg-type]
            ):
                return
            scope = json_to_api(scope)
            rt: Runtime = self.state.rt
            try:
                if rt.settings.lean_routes and await lean.answer(rt, self, scope, receive, send):  # type: ignore[arg-type]
                    return
            except Exception as exc:  # a lean handler's unexpected error: answered once, here
                if scope["state"].get("lean"):
                    raise  # the answer had started
                request: Request[Any, Any, Any] = Request(scope, receive)  # type: ignore[arg-type]
                response = error_response(request, exc).to_asgi_response(None, request)
                await response(scope, receive, send)  # type: ignore[arg-type]
                return
            # The framework answers the rest: its area's routes are registered first (the
            # lean path needs none, it imports only the handler it calls).
            self.areas.ensure(scope["path"])
            send = html.with_page_headers(send)  # type: ignore[arg-type]
        await super().__call__(scope, receive, send)


async def refuse_foreign_digit_ids(request: Request[Any, Any, Any]) -> None:
    """Litestar's `{name:int}` path parameters take any script's digits (int("\u0665") == 5);
    Zulip's URLs match [0-9]+ only, so such a path names no route."""
    numbers = [v for v in request.path_params.values() if isinstance(v, int)]
    if numbers and set(numbers) & foreign_digit_values(request.scope["path"].split("/")):
        raise ResourceNotFoundError("Not Found")


async def provide_params(request: Request[Any, Any, Any], rt: Runtime) -> Params:
    """The request's parameters. Litestar resolves dependencies of the same depth in a task
    group each (a cost on every request), so they form a chain instead: rt, then params, then
    user. A route that authenticates gets a bad body's error from `provide_user`, after the
    credentials are checked; any other route gets it here."""
    del rt  # a dependency only to order the chain
    if not route_takes(request, "params"):
        return Params({})  # routes that read their body themselves (uploads)
    try:
        return await Params.from_request(request)
    except ZulipError as error:
        if not route_takes(request, "user"):
            raise
        return Params.unreadable_body(error)


def create_app(settings: Settings, rt: Runtime | None = None) -> Litestar:
    """The ASGI application. With `rt`, use that runtime (tests); else open one at start-up."""
    hook_modules.serve()  # this process's sends reach the send hooks (push, webhooks...)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        runtime = rt or await Runtime.open(settings)
        app.state.rt = runtime
        gc_task = asyncio.create_task(runtime.broker.run_gc(settings.gc_interval_secs))
        # Changes the admin CLI commits reach live queues through the change log.
        watcher = runtime.watcher()
        await watcher.open()
        feed = ChangeFeed(runtime)
        await feed.start()
        watcher.add_listener(feed.publish_new)
        await fail_interrupted_exports(runtime)
        await external_images.ensure_camo_key(runtime)
        watch_task = asyncio.create_task(watcher.run())
        tasks = [gc_task, watch_task]
        if settings.backup_every_hours > 0:
            folder = settings.db_path.resolve().parent / "backups"
            every = settings.backup_every_hours * 3600
            source = settings.db_url or settings.db_path
            periodic = run_periodic_backups(source, folder, every, settings.backup_keep)
            tasks.append(asyncio.create_task(periodic))
        background = Background(runtime, settings)
        background.start()
        try:
            yield
        finally:
            await background.stop()
            runtime.broker.shutdown()
            for task in tasks:
                await cancel_task(task)
            await watcher.close()
            if rt is None:
                await runtime.close()

    app = TeamchatLitestar(
        route_handlers=[],
        dependencies={
            "params": Provide(provide_params),
            "rt": Provide(provide_runtime, sync_to_thread=False),
            "user": Provide(provide_user),
        },
        exception_handlers={Exception: error_response},
        before_request=refuse_foreign_digit_ids,
        lifespan=[lifespan],
        logging_config=None,
        openapi_config=None,
        request_max_body_size=settings.max_file_upload_size_mib * 1024 * 1024 + 65536,
    )
    app.areas = AreaRoutes(app)
    return app
