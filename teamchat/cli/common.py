"""Shared CLI plumbing: the --db option, running an action in a short-lived runtime, errors."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import typer
from rich.console import Console

from teamchat.config import Settings
from teamchat.errors import ZulipError
from teamchat.runtime import Runtime
from teamchat.store.migrations import NotOurDatabaseError

T = TypeVar("T")
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


class CliState:
    """What the global options decided, shared by every command."""

    db_path: Path = Path("teamchat.db")


STATE = CliState()


def fail(message: str) -> typer.Exit:
    err_console.print(f"[red]error:[/] {message}", soft_wrap=True)
    return typer.Exit(1)


def run_action(action: Callable[[Runtime], Awaitable[T]], settings: Settings | None = None) -> T:
    """Open the database with a broker that reaches no client, run `action`, close."""
    settings = settings or Settings.from_env(STATE.db_path)

    async def main() -> T:
        rt = await Runtime.open_offline(settings)
        try:
            return await action(rt)
        finally:
            await rt.close()

    try:
        return asyncio.run(main())
    except ZulipError as exc:
        raise fail(exc.msg) from None
    except NotOurDatabaseError as exc:
        raise fail(str(exc)) from None
    except sqlite3.Error as exc:
        raise fail(f"cannot use database {settings.db_path}: {exc}") from None


def zuliprc_text(email: str, api_key: str, site: str) -> str:
    return f"[api]\nemail={email}\nkey={api_key}\nsite={site}\n"
