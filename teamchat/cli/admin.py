"""`teamchat admin ...`: set-up and repair commands that write through the same actions."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from teamchat.actions.ops.upload_moves import move_uploads_out
from teamchat.actions.org import realm as realm_actions
from teamchat.actions.people import password_checks
from teamchat.actions.people import users as user_actions
from teamchat.cli.common import (
    STATE,
    console,
    fail,
    open_uploads,
    run_action,
    write_private_file,
    zuliprc_text,
)
from teamchat.config import Settings
from teamchat.errors import ZulipError
from teamchat.lib import wire
from teamchat.records import ROLE_BY_NAME, BotType, Role, UserRow
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store import users as user_store

admin = typer.Typer(help="Administer the organization in the database.", no_args_is_help=True)

ROLE_HELP = "owner, admin, moderator, member or guest"


def parse_role(name: str) -> Role:
    role = ROLE_BY_NAME.get(name.lower())
    if role is None:
        raise fail(f"unknown role '{name}' (use {ROLE_HELP})")
    return role


async def _user_by_email(rt: Runtime, email: str) -> UserRow:
    async with rt.db.read() as conn:
        user = await user_actions.find_user_by_email(conn, email)
    if user is None:
        raise ZulipError(f"No user with email '{email}'")
    return user


@admin.command("create-realm")
def create_realm(
    name: Annotated[str, typer.Option(help="Organization name")],
    owner_email: Annotated[str, typer.Option(help="Owner's email")],
    owner_name: Annotated[str, typer.Option(help="Owner's full name")],
    owner_password: Annotated[str, typer.Option(help="Owner's password")],
) -> None:
    """Create the organization and its owner in an empty database."""
    realm, owner = run_action(
        lambda rt: realm_actions.check_create_realm(
            rt,
            name=name,
            owner_email=owner_email,
            owner_full_name=owner_name,
            owner_password=owner_password,
        ),
        create=True,
    )
    console.print(f"[green]Created[/] organization {realm.name!r}; owner {owner.delivery_email}")
    console.print(f"api_key={owner.api_key}")


@admin.command("create-user")
def create_user(
    email: Annotated[str, typer.Option(help="Email address (the login)")],
    full_name: Annotated[str, typer.Option(help="Full name")],
    password: Annotated[str | None, typer.Option(help="Password (not for bots)")] = None,
    role: Annotated[str, typer.Option(help=ROLE_HELP)] = "member",
    bot: Annotated[bool, typer.Option("--bot", help="Create a generic bot")] = False,
) -> None:
    """Create a user (or a bot) and print their API key."""
    parsed_role = parse_role(role)
    if password is None and not bot:
        raise fail("--password is required for a user (bots have no password)")

    async def action(rt: Runtime) -> UserRow:
        owner = None
        if bot:
            async with rt.db.read() as conn:
                owners = [
                    u for u in await user_store.list_users(conn, is_active=True) if u.is_owner
                ]
            owner = owners[0] if owners else None
        return await user_actions.check_create_user(
            rt,
            email=email,
            full_name=full_name,
            password=None if bot else password,
            role=parsed_role,
            bot_type=BotType.GENERIC if bot else None,
            bot_owner=owner,
        )

    user = run_action(action)
    kind = "bot" if bot else "user"
    console.print(f"[green]Created[/] {kind} {user.delivery_email} (id {user.id})")
    console.print(f"api_key={user.api_key}")


@admin.command("zuliprc")
def zuliprc(
    email: str,
    site: Annotated[str | None, typer.Option(help="Server URL for the site= line")] = None,
    output: Annotated[
        Path | None, typer.Option(help="Write to this file (mode 0600) instead of printing")
    ] = None,
) -> None:
    """Print a zuliprc (the api section: email, key, site) for a user."""

    async def action(rt: Runtime) -> str:
        user = await _user_by_email(rt, email)
        realm = await realm_actions.get_realm(rt)
        base = site or rt.external_url
        return zuliprc_text(wire.api_email(user, realm.host), user.api_key, base)

    text = run_action(action)
    if output is None:
        sys.stdout.write(text)
        return
    write_private_file(output, text)
    console.print(f"[green]Wrote[/] {output} (mode 0600)")


@admin.command("list-users")
def list_users(as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False) -> None:
    """List every user and bot."""

    async def action(rt: Runtime) -> list[UserRow]:
        async with rt.db.read() as conn:
            if await realm_store.get_realm(conn) is None:
                raise ZulipError("This database has no organization yet.")
            return await user_store.list_users(conn)

    users = run_action(action)
    if as_json:
        rows = [
            {
                "user_id": u.id,
                "email": u.delivery_email,
                "full_name": u.full_name,
                "role": Role(u.role).name.lower(),
                "is_bot": u.is_bot,
                "is_active": u.is_active,
            }
            for u in users
        ]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    table = Table("id", "email", "full name", "role", "bot", "active")
    for u in users:
        table.add_row(
            str(u.id),
            u.delivery_email,
            u.full_name,
            Role(u.role).name.lower(),
            "yes" if u.is_bot else "",
            "yes" if u.is_active else "no",
        )
    console.print(table)


@admin.command("set-password")
def set_password(
    email: str,
    password: Annotated[
        str | None, typer.Option(help="New password (prompted for when omitted)")
    ] = None,
) -> None:
    """Set a user's password."""
    if password is None:
        if not sys.stdin.isatty():
            raise fail("no terminal to prompt on; pass --password")
        password = typer.prompt("New password", hide_input=True, confirmation_prompt=True)
    new_password = password

    async def action(rt: Runtime) -> None:
        user = await _user_by_email(rt, email)
        await user_actions.check_set_password(rt, user, new_password)

    run_action(action)
    console.print(
        f"[green]Password set[/] for {email}; its failed log-in attempts are cleared and its "
        "browser sessions ended"
    )


@admin.command("unlock")
def unlock(email: str) -> None:
    """Clear an account's failed password attempts, so it may log in again at once."""

    async def action(rt: Runtime) -> None:
        await password_checks.do_unlock(rt, await _user_by_email(rt, email))

    run_action(action)
    console.print(f"[green]Unlocked[/] {email}: its failed log-in attempts are cleared")


@admin.command("regenerate-api-key")
def regenerate_api_key(email: str) -> None:
    """Give a user a new API key; the old one stops working at once."""

    async def action(rt: Runtime) -> str:
        return await user_actions.do_regenerate_api_key(rt, await _user_by_email(rt, email))

    console.print(f"api_key={run_action(action)}")


# People commands register themselves on `admin` (deactivate, roles, settings defaults).
from teamchat.cli import admin_people  # noqa: E402, F401


@admin.command("move-uploads")
def move_uploads() -> None:
    """Move the upload bytes kept in the database into the directory or bucket --uploads
    names (safe while a server started with the same --uploads runs)."""
    settings = Settings.from_env(STATE.db_target, uploads=STATE.uploads)
    check = open_uploads(settings)
    if check is None:
        raise fail("give --uploads DIRECTORY or --uploads s3://bucket/prefix: where to move them")
    check.close()
    with console.status("Moving uploads") as status:

        def progress(kind: str, moved: int) -> None:
            status.update(f"Moving uploads: {moved} {kind}")

        counts = run_action(lambda rt: move_uploads_out(rt, progress), settings)
    moved = ", ".join(f"{count} {kind}" for kind, count in counts.items())
    console.print(f"[green]Moved[/] {moved} to {settings.uploads}", soft_wrap=True)
