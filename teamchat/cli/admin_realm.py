"""`teamchat admin realm show|set`: organization settings from the shell.

Values are typed by the setting, not JSON: `realm set name Acme Chat` needs no quotes,
`-1` works as a value, booleans are true/false (yes/no, on/off), groups are named, and a
bad value names the setting and what it accepts. `set` prints the value now stored.
"""

from __future__ import annotations

import json
from typing import Annotated

import msgspec
import typer

from teamchat.actions.org import realm_deactivation, realm_settings
from teamchat.actions.org.permissions import realm_group_settings
from teamchat.cli.admin import admin
from teamchat.cli.common import (
    JSON_OPTION,
    console,
    fail,
    first_owner,
    print_settings,
    run_action,
)
from teamchat.errors import ZulipError
from teamchat.lib import realm_properties as props
from teamchat.lib import realm_settings as settings_lib
from teamchat.lib.group_permissions import REALM_PERMISSIONS
from teamchat.lib.integers import is_ascii_digits, parse_int
from teamchat.runtime import Runtime
from teamchat.store import realm as realm_store
from teamchat.store import streams as stream_store
from teamchat.store import user_groups as group_store

realm_app = typer.Typer(help="Show or change organization settings.", no_args_is_help=True)
admin.add_typer(realm_app, name="realm")

TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")
# Integer settings that accept only a few values, for the error message.
CHOICES: dict[str, object] = {
    "digest_weekday": "0 (Monday) to 6 (Sunday)",
    "giphy_rating": "0 to 5",
    "org_type": ", ".join(str(t) for t in props.ORG_TYPES),
    "video_chat_provider": ", ".join(
        f"{p['id']} ({key})" for key, p in props.VIDEO_CHAT_PROVIDERS.items()
    ),
    "message_edit_history_visibility_policy": ", ".join(props.EDIT_HISTORY_POLICIES),
    "topics_policy": ", ".join(props.TOPICS_POLICIES),
}


async def _realm_values(rt: Runtime) -> dict[str, object]:
    async with rt.db.read() as conn:
        realm = await realm_store.get_realm(conn)
        if realm is None:
            raise ZulipError("This database has no organization yet.")
        groups = await realm_group_settings(conn, realm)
        names = {g.id: g.name for g in await group_store.list_groups(conn)}
    values: dict[str, object] = {"name": realm.name, "description": realm.description}
    settings = settings_lib.load(realm.settings_json)
    values.update(msgspec.structs.asdict(settings))
    values["allow_edit_history"] = settings.message_edit_history_visibility_policy != "none"
    for setting, value in groups.items():
        values[setting] = names.get(value, value) if isinstance(value, int) else value
    return values


@realm_app.command("show")
def realm_show(as_json: Annotated[bool, JSON_OPTION] = False) -> None:
    """Show every organization setting and permission group."""
    values = run_action(_realm_values)
    print_settings({name: values[name] for name in sorted(values)}, as_json=as_json)


def _bad(name: str, text: str, accepted: object) -> ZulipError:
    return ZulipError(f"{name}: {text!r} is not a valid value (accepted: {accepted})")


def _integer(name: str, text: str, accepted: object) -> int:
    value = parse_int(text)
    if value is None:
        raise _bad(name, text, accepted)
    return value


def parse_property(name: str, text: str) -> object:
    """The value of property `name` typed on the command line (channels stay text)."""
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]  # JSON-quoted, as older docs said to type strings
    if name in props.STRING_PROPERTIES:
        return text
    if name in props.BOOL_PROPERTIES:
        if text.lower() in TRUE_WORDS + FALSE_WORDS:
            return text.lower() in TRUE_WORDS
        raise _bad(name, text, "true or false")
    if name in props.TIME_LIMIT_PROPERTIES or name == "message_retention_days":
        if text.lower() == "unlimited":
            return "unlimited"
        return _integer(name, text, "a positive number of seconds/days, or unlimited")
    if name == "jitsi_server_url":
        return text
    if name in props.CHANNEL_PROPERTIES:
        return text
    return _integer(name, text, CHOICES.get(name, "an integer"))


async def _channel_id(rt: Runtime, name: str, text: str) -> int:
    if text.lower() in ("none", "-1"):
        return -1
    async with rt.db.read() as conn:
        stream = await stream_store.get_stream_by_name(conn, text)
        if stream is None and is_ascii_digits(text):
            stream = await stream_store.get_stream_by_id(conn, int(text))
    if stream is None:
        raise _bad(name, text, "a channel name or id, or none")
    return stream.id


async def _group_change(rt: Runtime, name: str, text: str) -> dict[str, object]:
    async with rt.db.read() as conn:
        groups = {g.name: g.id for g in await group_store.list_groups(conn) if not g.deactivated}
    if text in groups:
        return {"new": groups[text]}
    if is_ascii_digits(text) and int(text) in groups.values():
        return {"new": int(text)}
    raise _bad(name, text, "a group name: " + ", ".join(sorted(groups)))


async def _accepted_value(rt: Runtime, name: str, text: str) -> object:
    if name in REALM_PERMISSIONS:
        return await _group_change(rt, name, text)
    value = parse_property(name, text)
    if name in props.CHANNEL_PROPERTIES:
        return await _channel_id(rt, name, str(value))
    return value


@realm_app.command(
    "set", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}
)
def realm_set(name: str, value: Annotated[list[str], typer.Argument()]) -> None:
    """Change one setting: `realm set name Acme Chat`, `realm set waiting_period_threshold 3`,
    `realm set can_invite_users_group role:administrators`, `... -1`, `... unlimited`."""
    if not realm_settings.is_setting(name) or name == "authentication_methods":
        raise fail(f"unknown setting '{name}' (see `teamchat admin realm show`)")
    text = " ".join(value)

    async def action(rt: Runtime) -> tuple[bool, object]:
        owner = await first_owner(rt)
        changes = {name: await _accepted_value(rt, name, text)}
        try:
            changed = await realm_settings.check_update_realm(rt, owner, changes)
        except ZulipError as exc:
            message = exc.msg if name in exc.msg else f"{name}: {exc.msg}"
            raise ZulipError(message) from None
        return bool(changed), (await _realm_values(rt)).get(name)

    changed, stored = run_action(action)
    verb = "[green]Set[/]" if changed else "Unchanged:"
    console.print(f"{verb} {name} = {json.dumps(stored)}", soft_wrap=True)


@realm_app.command("deactivate")
def realm_deactivate() -> None:
    """Deactivate the organization: every request is refused and event queues are dropped
    (a running server sees it within a second); `realm reactivate` undoes it."""
    run_action(realm_deactivation.do_deactivate_realm)
    console.print("[green]Deactivated[/] the organization: requests now answer REALM_DEACTIVATED.")


@realm_app.command("reactivate")
def realm_reactivate() -> None:
    """Reactivate a deactivated organization."""
    run_action(realm_deactivation.do_reactivate_realm)
    console.print("[green]Reactivated[/] the organization.")
