"""`teamchat admin channels|channel-create|channel-archive|subscribe|group-add|group-remove`:
channels and group membership from the shell, through the API's actions (acting as the
organization's first owner)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.table import Table

from teamchat.actions.channels import stream_admin
from teamchat.actions.channels.streams import ChannelRequest, CreateOptions, check_add_subscriptions
from teamchat.actions.org.user_group_members import do_update_user_group_members
from teamchat.cli.admin import _user_by_email, admin
from teamchat.cli.common import JSON_OPTION, console, first_owner, run_action
from teamchat.errors import ZulipError
from teamchat.records import StreamRow
from teamchat.runtime import Runtime
from teamchat.store import streams as stream_store
from teamchat.store import subscriptions as sub_store
from teamchat.store import user_groups as group_store

EMAILS = Annotated[list[str], typer.Argument(help="Users' email addresses")]


async def _stream(rt: Runtime, name: str) -> StreamRow:
    async with rt.db.read() as conn:
        stream = await stream_store.get_stream_by_name(conn, name)
    if stream is None:
        raise ZulipError(f"Channel '{name}' does not exist")
    return stream


@admin.command("channels")
def list_channels(as_json: Annotated[bool, JSON_OPTION] = False) -> None:
    """List every channel (archived ones too) with its subscriber count."""

    async def action(rt: Runtime) -> list[dict[str, object]]:
        await first_owner(rt)
        async with rt.db.read() as conn:
            streams = await stream_store.list_streams(conn)
            counts = await sub_store.subscriber_counts(conn, [s.id for s in streams])
        return [
            {
                "stream_id": s.id,
                "name": s.name,
                "description": s.description,
                "invite_only": s.invite_only,
                "is_archived": s.is_archived,
                "subscribers": counts.get(s.id, 0),
            }
            for s in streams
        ]

    rows = run_action(action)
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    table = Table("id", "name", "private", "archived", "subscribers", "description")
    for row in rows:
        table.add_row(
            str(row["stream_id"]),
            str(row["name"]),
            "yes" if row["invite_only"] else "",
            "yes" if row["is_archived"] else "",
            str(row["subscribers"]),
            str(row["description"]),
        )
    console.print(table)


async def _subscribe(
    rt: Runtime, name: str, emails: list[str], options: CreateOptions, description: str = ""
) -> None:
    owner = await first_owner(rt)
    users = [await _user_by_email(rt, email) for email in emails] or [owner]
    await check_add_subscriptions(
        rt,
        owner,
        [ChannelRequest(name=name, description=description)],
        options,
        principals=[u.id for u in users],
        authorization_errors_fatal=True,
    )


@admin.command("channel-create")
def create_channel(
    name: str,
    subscribers: Annotated[
        list[str] | None, typer.Argument(help="Emails to subscribe (default: the owner)")
    ] = None,
    description: Annotated[str, typer.Option(help="Markdown description")] = "",
    private: Annotated[bool, typer.Option("--private", help="Invite-only channel")] = False,
) -> None:
    """Create a channel and subscribe people to it."""

    async def action(rt: Runtime) -> None:
        async with rt.db.read() as conn:
            if await stream_store.get_stream_by_name(conn, name) is not None:
                raise ZulipError(f"Channel '{name}' already exists")
        await _subscribe(
            rt, name, subscribers or [], CreateOptions(invite_only=private), description
        )

    run_action(action)
    console.print(f"[green]Created[/] channel {name!r}")


@admin.command("channel-archive")
def archive_channel(name: str) -> None:
    """Archive a channel (its messages stay; nobody can post)."""

    async def action(rt: Runtime) -> None:
        stream = await _stream(rt, name)
        await stream_admin.check_archive_stream(rt, await first_owner(rt), stream.id)

    run_action(action)
    console.print(f"[green]Archived[/] channel {name!r}")


@admin.command("subscribe")
def subscribe(channel: str, emails: EMAILS) -> None:
    """Subscribe users to an existing channel."""

    async def action(rt: Runtime) -> None:
        await _stream(rt, channel)
        await _subscribe(rt, channel, emails, CreateOptions())

    run_action(action)
    console.print(f"[green]Subscribed[/] {', '.join(emails)} to {channel!r}")


def _group_members(group_name: str, emails: list[str], *, add: bool) -> None:
    async def action(rt: Runtime) -> None:
        async with rt.db.read() as conn:
            groups = {g.name: g for g in await group_store.list_groups(conn)}
        group = groups.get(group_name)
        if group is None or group.is_system_group:
            raise ZulipError(f"No user group named '{group_name}' (system groups follow roles)")
        ids = [(await _user_by_email(rt, email)).id for email in emails]
        owner = await first_owner(rt)
        if add:
            await do_update_user_group_members(rt, owner, group.id, add=ids)
        else:
            await do_update_user_group_members(rt, owner, group.id, delete=ids)

    run_action(action)


@admin.command("group-add")
def group_add(group: str, emails: EMAILS) -> None:
    """Add users to a user group."""
    _group_members(group, emails, add=True)
    console.print(f"[green]Added[/] {', '.join(emails)} to {group!r}")


@admin.command("group-remove")
def group_remove(group: str, emails: EMAILS) -> None:
    """Remove users from a user group."""
    _group_members(group, emails, add=False)
    console.print(f"[green]Removed[/] {', '.join(emails)} from {group!r}")
