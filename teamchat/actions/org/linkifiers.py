"""Linkifiers and code playgrounds: add, update, reorder, remove; their events and state.

Validation is the renderer's (RE2 patterns, RFC 6570 templates), so what an administrator
saves is exactly what messages and topics will use.
"""

from __future__ import annotations

import re

import msgspec

from teamchat.actions.org import permissions
from teamchat.actions.org.user_group_edit import publish_to_active
from teamchat.actions.state import StateContext, state_fetcher
from teamchat.errors import ValidationFailureError, ZulipError
from teamchat.events.types import Event
from teamchat.events.types_org import (
    LinkifierObject,
    PlaygroundObject,
    RealmFiltersEvent,
    RealmLinkifiersEvent,
    RealmPlaygroundsEvent,
    RealmUpdateEvent,
)
from teamchat.lib import realm_settings
from teamchat.lib.text import check_text
from teamchat.records import UserRow
from teamchat.render.context import Linkifier
from teamchat.render.linkifiers import (
    UNSAFE_URL_TEMPLATE,
    BadLinkifierError,
    BadPlaygroundTemplateError,
    compile_linkifier,
    validate_playground_template,
)
from teamchat.runtime import Runtime
from teamchat.store import linkifiers as linkifier_store
from teamchat.store import realm as realm_store
from teamchat.store.conn import IntegrityError
from teamchat.store.db import Conn, Tx

MAX_PYGMENTS_LANGUAGE_CHARS = 40
PYGMENTS_LANGUAGE_RE = re.compile(r"^[ a-zA-Z0-9_+\-./#]*$")


def _check_not_blank(**fields: str) -> None:
    """Django's blank=False: every field must be given a non-empty value."""
    for name, value in fields.items():
        if not value:
            message = "This field cannot be blank."
            raise ValidationFailureError(message, {name: [message]})


def _check_linkifier(pattern: str, url_template: str) -> None:
    """Zulip's RealmFilter validation, reported like its ValidationFailureError."""
    _check_not_blank(pattern=pattern, url_template=url_template)
    check_text("pattern", pattern)
    try:
        compile_linkifier(pattern, url_template)
    except BadLinkifierError as error:
        message = str(error)
        # zulip-compat: the pattern is checked by RealmFilter.clean(), a model-wide check.
        field = "__all__"
        if message in ("Invalid URL template.", UNSAFE_URL_TEMPLATE):
            field = "url_template"
        raise ValidationFailureError(message, {field: [message]}) from None


async def linkifier_objects(conn: Conn) -> list[LinkifierObject]:
    """The realm's linkifiers in order, as the API shows them."""
    return [
        LinkifierObject(id=row.id, pattern=row.pattern, url_template=row.url_template)
        for row in await linkifier_store.list_linkifiers(conn)
    ]


async def render_linkifiers(conn: Conn) -> list[Linkifier]:
    """The realm's linkifiers for RenderContext.linkifiers (messages, topic_links)."""
    return [
        Linkifier(pattern=row.pattern, url_template=row.url_template)
        for row in await linkifier_store.list_linkifiers(conn)
    ]


async def _publish_linkifiers(rt: Runtime, tx: Tx) -> None:
    # zulip-compat: realm_filters is still sent, always empty (old format, see register).
    events: list[Event] = [
        RealmLinkifiersEvent(realm_linkifiers=await linkifier_objects(tx)),
        RealmFiltersEvent(realm_filters=[]),
    ]
    await publish_to_active(rt, tx, events)


async def get_linkifiers(rt: Runtime) -> list[LinkifierObject]:
    """GET /realm/linkifiers."""
    async with rt.db.read() as conn:
        return await linkifier_objects(conn)


async def check_add_linkifier(rt: Runtime, user: UserRow, pattern: str, url_template: str) -> int:
    """POST /realm/filters: returns the new linkifier's id."""
    permissions.require_realm_admin(user)
    _check_linkifier(pattern, url_template)
    async with rt.db.write() as tx:
        try:
            linkifier_id = await linkifier_store.insert_linkifier(
                tx, pattern=pattern, url_template=url_template
            )
        except IntegrityError:
            message = "Linkifier with this Realm and Pattern already exists."
            raise ValidationFailureError(message, {"__all__": [message]}) from None
        await _publish_linkifiers(rt, tx)
    return linkifier_id


async def check_update_linkifier(
    rt: Runtime, user: UserRow, linkifier_id: int, pattern: str, url_template: str
) -> None:
    """PATCH /realm/filters/{filter_id}: new pattern and URL template, same position."""
    permissions.require_realm_admin(user)
    async with rt.db.write() as tx:
        if await linkifier_store.get_linkifier(tx, linkifier_id) is None:
            raise ZulipError("Linkifier not found.")
        _check_linkifier(pattern, url_template)
        try:
            await linkifier_store.update_linkifier(
                tx, linkifier_id, pattern=pattern, url_template=url_template
            )
        except IntegrityError:
            message = "Linkifier with this Realm and Pattern already exists."
            raise ValidationFailureError(message, {"__all__": [message]}) from None
        await _publish_linkifiers(rt, tx)


async def check_remove_linkifier(rt: Runtime, user: UserRow, linkifier_id: int) -> None:
    """DELETE /realm/filters/{filter_id}."""
    permissions.require_realm_admin(user)
    async with rt.db.write() as tx:
        if not await linkifier_store.delete_linkifier(tx, linkifier_id):
            raise ZulipError("Linkifier not found.")
        await _publish_linkifiers(rt, tx)


async def check_reorder_linkifiers(rt: Runtime, user: UserRow, ordered_ids: list[int]) -> None:
    """PATCH /realm/linkifiers: `ordered_ids` must list every linkifier exactly once."""
    permissions.require_realm_admin(user)
    async with rt.db.write() as tx:
        existing = {row.id for row in await linkifier_store.list_linkifiers(tx)}
        if len(existing) < len(ordered_ids):
            raise ZulipError("The ordered list must not contain duplicated linkifiers")
        if existing != set(ordered_ids):
            raise ZulipError("The ordered list must enumerate all existing linkifiers exactly once")
        await linkifier_store.set_linkifier_order(tx, ordered_ids)
        await _publish_linkifiers(rt, tx)


async def playground_objects(conn: Conn) -> list[PlaygroundObject]:
    """The realm's code playgrounds, as the API shows them."""
    return [
        PlaygroundObject(**msgspec.structs.asdict(row))
        for row in await linkifier_store.list_playgrounds(conn)
    ]


def _check_pygments_language(language: str) -> None:
    if len(language) > MAX_PYGMENTS_LANGUAGE_CHARS:
        raise ZulipError(
            f"pygments_language is too long (limit: {MAX_PYGMENTS_LANGUAGE_CHARS} characters)"
        )
    if not PYGMENTS_LANGUAGE_RE.match(language):
        raise ZulipError("Invalid characters in pygments language")


async def check_add_playground(
    rt: Runtime, user: UserRow, *, name: str, pygments_language: str, url_template: str
) -> int:
    """POST /realm/playgrounds: returns the new playground's id."""
    permissions.require_realm_admin(user)
    _check_pygments_language(pygments_language)
    name, pygments_language, url_template = (
        name.strip(),
        pygments_language.strip(),
        url_template.strip(),
    )
    _check_not_blank(name=name, pygments_language=pygments_language, url_template=url_template)
    check_text("name", name)
    try:
        validate_playground_template(url_template)
    except BadPlaygroundTemplateError as error:
        raise ValidationFailureError(str(error), {"__all__": [str(error)]}) from None
    async with rt.db.write() as tx:
        try:
            playground_id = await linkifier_store.insert_playground(
                tx, name=name, pygments_language=pygments_language, url_template=url_template
            )
        except IntegrityError:
            raise ZulipError(
                "Realm playground with this Realm, Pygments language and Name already exists."
            ) from None
        event = RealmPlaygroundsEvent(realm_playgrounds=await playground_objects(tx))
        await publish_to_active(rt, tx, [event])
    return playground_id


async def check_remove_playground(rt: Runtime, user: UserRow, playground_id: int) -> None:
    """DELETE /realm/playgrounds/{id}; clears default_code_block_language if it was this one."""
    permissions.require_realm_admin(user)
    async with rt.db.write() as tx:
        playground = await linkifier_store.get_playground(tx, playground_id)
        if playground is None:
            raise ZulipError("Invalid playground")
        events: list[Event] = []
        realm = await realm_store.get_realm(tx)
        assert realm is not None
        if realm_settings.load(realm.settings_json).default_code_block_language == (
            playground.pygments_language
        ):
            stored = msgspec.json.decode(realm.settings_json or "{}")
            stored["default_code_block_language"] = ""
            await realm_store.update_settings_json(
                tx, realm.id, msgspec.json.encode(stored).decode()
            )
            events.append(RealmUpdateEvent(property="default_code_block_language", value=""))
        await linkifier_store.delete_playground(tx, playground_id)
        events.append(RealmPlaygroundsEvent(realm_playgrounds=await playground_objects(tx)))
        await publish_to_active(rt, tx, events)


@state_fetcher("realm_linkifiers", "realm_filters", "realm_playgrounds")
async def _linkifiers_state(ctx: StateContext) -> None:
    # zulip-compat: clients must declare linkifier_url_template to get linkifiers at all.
    modern = ctx.caps.linkifier_url_template
    ctx.state["realm_linkifiers"] = (
        [msgspec.to_builtins(o) for o in await linkifier_objects(ctx.conn)] if modern else []
    )
    ctx.state["realm_filters"] = []
    ctx.state["realm_playgrounds"] = [
        msgspec.to_builtins(o) for o in await playground_objects(ctx.conn)
    ]
