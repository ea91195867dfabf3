"""`teamchat admin` people commands: deactivate, reactivate, set-role, defaults set/show.

They run the same actions as the API (without an acting user: the server's administrator
may do anything, except leave the organization without an owner).
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from teamchat.actions.people import deactivation, idle_users, user_admin, users
from teamchat.actions.people import user_settings as settings_actions
from teamchat.cli.admin import ROLE_HELP, _user_by_email, admin, parse_role
from teamchat.cli.common import console, fail, print_settings, run_action
from teamchat.errors import ZulipError
from teamchat.lib.integers import parse_int
from teamchat.lib.user_settings import (
    REALM_DEFAULT_SETTINGS,
    SETTING_TYPES,
    SettingValue,
    as_dict,
    load,
)
from teamchat.records import Role
from teamchat.runtime import Runtime

defaults = typer.Typer(
    help="Show or change the settings new users start with.", no_args_is_help=True
)
admin.add_typer(defaults, name="defaults")


@admin.command("deactivate-user")
def deactivate_user(email: str) -> None:
    """Deactivate a user (and the bots they own); their API key stops working at once."""

    async def action(rt: Runtime) -> None:
        user = await _user_by_email(rt, email)
        if not user.is_active:
            raise ZulipError("User is deactivated")
        await deactivation.do_deactivate_user(rt, user)

    run_action(action)
    console.print(f"[green]Deactivated[/] {email}")


@admin.command("mark-idle")
def mark_idle(
    days: Annotated[
        int, typer.Option(help="Days without presence after which someone is idle.")
    ] = 28,
    emails: Annotated[
        list[str] | None,
        typer.Option("--email", help="Make this person idle now, whatever their presence."),
    ] = None,
) -> None:
    """Make idle everyone (not bots) without presence for DAYS days, or the people named:
    channel messages that carry no flag for them are stored without their row until they
    come back (the server also does this hourly, after TEAMCHAT_IDLE_AFTER_DAYS). Nothing
    anyone sees changes."""
    if days < 1:
        raise fail("--days must be at least 1.")

    async def action(rt: Runtime) -> int:
        if not emails:
            return await idle_users.mark_idle_users(rt, days)
        people = [await _user_by_email(rt, email) for email in emails]
        return await idle_users.mark_idle_now(rt, [user.id for user in people])

    marked = run_action(action)
    console.print(f"[green]{marked}[/] people made idle")


@admin.command("reactivate-user")
def reactivate_user(email: str) -> None:
    """Reactivate a deactivated user or bot."""

    async def action(rt: Runtime) -> None:
        user = await _user_by_email(rt, email)
        if user.is_active:
            raise ZulipError("User is already active.")
        await deactivation.do_reactivate_user(rt, user)

    run_action(action)
    console.print(f"[green]Reactivated[/] {email}")


@admin.command("can-create-users")
def can_create_users(
    email: str,
    grant: Annotated[
        bool, typer.Option("--grant/--revoke", help="Grant (default) or revoke the permission")
    ] = True,
) -> None:
    """Let an administrator (or bot) create accounts through POST /users, or stop them."""

    async def action(rt: Runtime) -> None:
        await users.do_set_can_create_users(rt, await _user_by_email(rt, email), grant)

    run_action(action)
    verb = "may now create users" if grant else "may no longer create users"
    console.print(f"[green]{email}[/] {verb} through the API")


@admin.command("set-role")
def set_role(email: str, role: Annotated[str, typer.Argument(help=ROLE_HELP)]) -> None:
    """Change a user's role."""
    new_role = parse_role(role)

    async def action(rt: Runtime) -> None:
        await user_admin.do_change_user_role(rt, await _user_by_email(rt, email), new_role)

    run_action(action)
    console.print(f"[green]Role set[/] {email}: {Role(new_role).name.lower()}")


def parse_setting(name: str, raw: str, *, personal: bool = False) -> SettingValue:
    """A command-line value for setting `name`, as the API would parse it; `personal`
    settings include those realm defaults do not have (allow_private_data_export, ...)."""
    if name not in (SETTING_TYPES if personal else REALM_DEFAULT_SETTINGS):
        raise fail(f"unknown setting '{name}'")
    kind = SETTING_TYPES[name]
    if kind is bool:
        if raw.lower() not in ("true", "false"):
            raise fail(f"{name} is not a boolean (use true or false)")
        return raw.lower() == "true"
    if kind is int:
        value = parse_int(raw)
        if value is None:
            raise fail(f"{name} is not an integer")
        return value
    return raw


@defaults.command("set")
def set_default(name: str, value: str) -> None:
    """Set one default (validated like PATCH /realm/user_settings_defaults)."""
    parsed = parse_setting(name, value)
    run_action(lambda rt: settings_actions.check_and_update_realm_defaults(rt, {name: parsed}))
    console.print(f"[green]Default set[/] {name} = {json.dumps(parsed)}")


@defaults.command("show")
def show_defaults(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Show the settings new users start with."""
    values = run_action(settings_actions.get_realm_defaults)
    print_settings({name: values[name] for name in REALM_DEFAULT_SETTINGS}, as_json=as_json)


user_settings_app = typer.Typer(help="Show or change one user's settings.", no_args_is_help=True)
admin.add_typer(user_settings_app, name="user-settings")


@user_settings_app.command("show")
def show_user_settings(
    email: str, as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False
) -> None:
    """Show a user's personal settings."""

    async def action(rt: Runtime) -> dict[str, SettingValue]:
        return as_dict(load((await _user_by_email(rt, email)).settings_json))

    print_settings(run_action(action), as_json=as_json)


@user_settings_app.command("set")
def set_user_setting(email: str, name: str, value: str) -> None:
    """Change one of a user's settings (validated like PATCH /settings)."""
    parsed = parse_setting(name, value, personal=True)

    async def action(rt: Runtime) -> None:
        user = await _user_by_email(rt, email)
        await settings_actions.check_change_settings(rt, user, {name: parsed})

    run_action(action)
    console.print(f"[green]Set[/] {email}: {name} = {json.dumps(parsed)}")
