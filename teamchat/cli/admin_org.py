"""`teamchat admin invite|groups|linkifiers`: organization administration from the shell.

Commands act as the organization's first active owner and go through the same actions
(and validation) as the API.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated

import msgspec
import typer
from rich.table import Table

from teamchat.actions.org import invites, invites_email, user_groups
from teamchat.actions.org.invites import InviteOptions
from teamchat.actions.org.mail import mail_configured
from teamchat.cli.admin import admin, parse_role
from teamchat.cli.common import JSON_OPTION, console, fail, first_owner, run_action
from teamchat.errors import ZulipError
from teamchat.lib.integers import is_ascii_digits
from teamchat.runtime import Runtime
from teamchat.store import linkifiers as linkifier_store
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store


def _site(rt: Runtime, site: str | None) -> str:
    return (site or rt.external_url).rstrip("/")


def _expiry(text: str | None) -> int | None:
    """Minutes, "never" (no expiry) or None (the server default)."""
    if text is None:
        return invites.DEFAULT_EXPIRY
    if text.lower() == "never":
        return None
    if not is_ascii_digits(text):
        raise fail("--expires-in-minutes takes a number of minutes or 'never'")
    return int(text)


@admin.command("invite")
def invite(
    role: Annotated[str, typer.Option(help="Role of the new member")] = "member",
    expires_in_minutes: Annotated[
        str | None, typer.Option(help="Minutes the link works, or 'never' (default: server's)")
    ] = None,
    channel: Annotated[
        list[str] | None, typer.Option("--channel", help="Channel to join (repeatable)")
    ] = None,
    no_default_channels: Annotated[
        bool,
        typer.Option(
            "--no-default-channels",
            help="Leave out the organization's default channels",
        ),
    ] = False,
    site: Annotated[str | None, typer.Option(help="Server URL the link starts with")] = None,
    email: Annotated[
        list[str] | None,
        typer.Option("--email", help="Email this address its own invitation (repeatable)"),
    ] = None,
) -> None:
    """Create a reusable invitation link and print it; with --email, email invitations
    instead (when the server cannot send email, print each address's link to share).

    Who signs up joins every `--channel` and, unless `--no-default-channels`, the
    organization's default channels (as Zulip's invitation dialog does by default)."""
    parsed_role = parse_role(role)
    minutes = _expiry(expires_in_minutes)

    async def action(rt: Runtime) -> str:
        owner = await first_owner(rt)
        stream_ids = []
        async with rt.db.read() as conn:
            for name in channel or []:
                stream = await stream_store.get_stream_by_name(conn, name)
                if stream is None:
                    raise ZulipError(f"Channel '{name}' does not exist")
                stream_ids.append(stream.id)
        options = InviteOptions(
            invite_as=int(parsed_role),
            expires_in_minutes=minutes,
            stream_ids=stream_ids,
            include_realm_default_subscriptions=not no_default_channels,
        )
        if email:
            unsent = await invites_email.do_invite_users(
                rt, owner, ",".join(email), options, realm_url=_site(rt, site)
            )
            return _email_report(rt, email, unsent)
        return await invites.do_create_multiuse_invite(
            rt, owner, options, realm_url=_site(rt, site)
        )

    sys.stdout.write(run_action(action) + "\n")


def _email_report(rt: Runtime, emails: list[str], unsent: list[tuple[str, str]]) -> str:
    """What `admin invite --email` prints: who was emailed, and the links of the others."""
    lines = [f"Emailed an invitation to {address}" for address in emails if address not in
             dict(unsent)]  # fmt: skip
    if unsent:
        lines.append(f"{invites_email.unsent_message(rt.settings)} Share these links instead:")
        lines += [f"  {address}: {link}" for address, link in unsent]
        if not mail_configured(rt.settings):
            lines.append("(To send email, set TEAMCHAT_SMTP_HOST; see docs/accounts.md.)")
    return "\n".join(lines)


@admin.command("groups")
def list_groups(as_json: Annotated[bool, JSON_OPTION] = False) -> None:
    """List user groups (system groups too) with their members and subgroups."""

    async def action(rt: Runtime) -> list[dict[str, object]]:
        async with rt.db.read() as conn:
            if await realm_store.get_realm(conn) is None:
                raise ZulipError("This database has no organization yet.")
            snap = await user_groups.load_groups(conn, rt.now())
        return [msgspec.to_builtins(user_groups.group_object(g, snap)) for g in snap.groups]

    groups = run_action(action)
    if as_json:
        sys.stdout.write(json.dumps(groups, indent=2) + "\n")
        return
    table = Table("id", "name", "members", "subgroups", "system", "deactivated")
    for group in groups:
        table.add_row(
            str(group["id"]),
            str(group["name"]),
            str(len(group["members"])),  # type: ignore[arg-type]
            ", ".join(str(i) for i in group["direct_subgroup_ids"]),  # type: ignore[attr-defined]
            "yes" if group["is_system_group"] else "",
            "yes" if group["deactivated"] else "",
        )
    console.print(table)


@admin.command("linkifiers")
def list_linkifiers(as_json: Annotated[bool, JSON_OPTION] = False) -> None:
    """List linkifiers in the order they apply."""

    async def action(rt: Runtime) -> list[dict[str, object]]:
        async with rt.db.read() as conn:
            rows = await linkifier_store.list_linkifiers(conn)
        return [{"id": r.id, "pattern": r.pattern, "url_template": r.url_template} for r in rows]

    rows = run_action(action)
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    table = Table("id", "pattern", "URL template")
    for row in rows:
        table.add_row(str(row["id"]), str(row["pattern"]), str(row["url_template"]))
    console.print(table)


@admin.command("invites")
def list_invites(
    as_json: Annotated[bool, JSON_OPTION] = False,
    site: Annotated[str | None, typer.Option(help="Server URL links start with")] = None,
) -> None:
    """List active invitations (email invitations and reusable links)."""

    async def action(rt: Runtime) -> list[dict[str, object]]:
        owner = await first_owner(rt)
        return await invites_email.get_invites(rt, owner, realm_url=_site(rt, site))

    rows = run_action(action)
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    table = Table("id", "kind", "email or link", "role", "expires")
    for row in rows:
        multiuse = bool(row.get("is_multiuse"))
        table.add_row(
            str(row["id"]),
            "link" if multiuse else "email",
            str(row.get("link_url") if multiuse else row.get("email")),
            str(row["invited_as"]),
            "never" if row["expiry_date"] is None else str(row["expiry_date"]),
        )
    console.print(table)


@admin.command("revoke-invite")
def revoke_invite(
    invite_id: int,
    link: Annotated[bool, typer.Option("--link", help="The id is a reusable link's")] = False,
) -> None:
    """Revoke an invitation by the id `admin invites` shows."""

    async def action(rt: Runtime) -> None:
        owner = await first_owner(rt)
        if link:
            await invites_email.do_revoke_multiuse_invite(rt, owner, invite_id)
        else:
            await invites_email.do_revoke_user_invite(rt, owner, invite_id)

    run_action(action)
    console.print(f"[green]Revoked[/] invitation {invite_id}")
