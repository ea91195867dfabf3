"""The POST /register initial state: one fetcher per event type, run in one read snapshot.

Feature modules add their fetchers with `@state_fetcher("type", ...)`. A fetcher may only
read through `ctx.conn` and write keys into `ctx.state`.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from msgspec import UNSET
from msgspec.structs import replace

from teamchat import store
from teamchat.actions.org.system_bots import cross_realm_bot_objects, is_system_bot
from teamchat.actions.people import people
from teamchat.actions.people.user_access import accessible_user_ids
from teamchat.events.queue import ClientCapabilities
from teamchat.lib import wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.passwords import MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS
from teamchat.lib.version import FEATURE_LEVEL, MERGE_BASE, ZULIP_VERSION
from teamchat.records import RealmRow, UserRow
from teamchat.runtime import Runtime
from teamchat.store.db import Conn

MAX_MESSAGE_LENGTH = 10000
MAX_TOPIC_LENGTH = 60
MAX_STREAM_NAME_LENGTH = 60
MAX_STREAM_DESCRIPTION_LENGTH = 1024
MAX_CHANNEL_FOLDER_NAME_LENGTH = 60
MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH = 1024
REALM_EMPTY_TOPIC_DISPLAY_NAME = "general chat"


@dataclass(kw_only=True)
class StateContext:
    rt: Runtime
    conn: Conn
    realm: RealmRow
    user: UserRow
    caps: ClientCapabilities
    realm_url: str
    state: JsonDict
    # What the client asked for (None: everything); most fetchers need not look.
    fetch_event_types: frozenset[str] | None = None


Fetcher = Callable[[StateContext], Awaitable[None]]
# (event types that ask for it, fetcher), in registration order.
FETCHERS: list[tuple[frozenset[str], Fetcher]] = []


def state_fetcher(*event_types: str) -> Callable[[Fetcher], Fetcher]:
    def register(fetcher: Fetcher) -> Fetcher:
        FETCHERS.append((frozenset(event_types), fetcher))
        return fetcher

    return register


# Every module with fetchers, in the order their keys are filled (a later fetcher may extend
# or overwrite an earlier one's keys). API areas are imported on their first request
# (http/areas.py), so the first POST /register imports the rest of these itself, and the
# order does not depend on which areas were used first. tests/test_state_fetchers.py checks
# that every module with a @state_fetcher is listed.
FETCHER_MODULES = (
    "teamchat.actions.state", "teamchat.actions.org.user_groups",
    "teamchat.actions.org.linkifiers", "teamchat.actions.org.realm_emoji",
    "teamchat.actions.messages.user_topics", "teamchat.actions.people.presence",
    "teamchat.actions.people.user_status", "teamchat.actions.org.realm_state",
    "teamchat.actions.scheduling.scheduled_messages", "teamchat.actions.scheduling.reminders",
    "teamchat.actions.channels.channel_state", "teamchat.actions.people.user_admin",
    "teamchat.actions.messages.unread", "teamchat.actions.messages.message_flags",
    "teamchat.actions.messages.message_state", "teamchat.actions.channels.default_streams",
    "teamchat.actions.people.alert_words", "teamchat.actions.people.bots",
    "teamchat.actions.channels.channel_folders", "teamchat.actions.people.custom_profile_fields",
    "teamchat.actions.messages.drafts", "teamchat.actions.people.muted_users",
    "teamchat.actions.people.navigation_views", "teamchat.actions.org.absent_features",
    "teamchat.actions.messages.saved_snippets", "teamchat.actions.people.user_settings",
    "teamchat.actions.integrations.incoming_webhooks",
)  # fmt: skip
_in_order: list[list[tuple[frozenset[str], Fetcher]]] = []


def all_fetchers() -> list[tuple[frozenset[str], Fetcher]]:
    """Every fetcher, in FETCHER_MODULES order (each module's in registration order)."""
    if not _in_order or len(_in_order[0]) != len(FETCHERS):
        for name in FETCHER_MODULES:
            importlib.import_module(name)
        rank = {name: n for n, name in enumerate(FETCHER_MODULES)}
        _in_order[:] = [sorted(FETCHERS, key=lambda item: rank[item[1].__module__])]
    return _in_order[0]


async def fetch_initial_state(ctx: StateContext, fetch_event_types: frozenset[str] | None) -> None:
    """Fill ctx.state with the keys for `fetch_event_types` (None: every type)."""
    version_keys(ctx.state)
    ctx.fetch_event_types = fetch_event_types
    for types, fetcher in all_fetchers():
        if fetch_event_types is None or types & fetch_event_types:
            await fetcher(ctx)


def version_keys(state: JsonDict) -> None:
    # zulip-compat: SPEC names these service_*; every real client reads the zulip_* names.
    state["zulip_version"] = ZULIP_VERSION
    state["zulip_feature_level"] = FEATURE_LEVEL
    state["zulip_merge_base"] = MERGE_BASE
    state["service_version"] = ZULIP_VERSION
    state["service_feature_level"] = FEATURE_LEVEL
    state["service_merge_base"] = MERGE_BASE


@state_fetcher("realm")
async def _realm_state(ctx: StateContext) -> None:
    realm, settings = ctx.realm, ctx.rt.settings
    ctx.state.update(
        realm_name=realm.name,
        realm_description=realm.rendered_description,
        realm_date_created=realm.date_created,
        realm_url=ctx.realm_url,
        realm_uri=ctx.realm_url,
        realm_icon_url=realm_icon_url(realm),
        realm_icon_source="G",
        realm_empty_topic_display_name=REALM_EMPTY_TOPIC_DISPLAY_NAME,
        max_message_length=MAX_MESSAGE_LENGTH,
        max_topic_length=MAX_TOPIC_LENGTH,
        max_stream_name_length=MAX_STREAM_NAME_LENGTH,
        max_stream_description_length=MAX_STREAM_DESCRIPTION_LENGTH,
        max_channel_folder_name_length=MAX_CHANNEL_FOLDER_NAME_LENGTH,
        max_channel_folder_description_length=MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH,
        max_file_upload_size_mib=settings.max_file_upload_size_mib,
        event_queue_longpoll_timeout_seconds=settings.longpoll_timeout_secs,
        realm_bot_domain=realm.host,
        password_min_length=MIN_PASSWORD_CHARS,
        password_max_length=MAX_PASSWORD_CHARS,
    )


def realm_icon_url(realm: RealmRow) -> str:
    return wire.gravatar_url(f"realm-{realm.id}@{realm.host}", 1).replace("&version=1", "")


@state_fetcher("realm_user")
async def _realm_user_state(ctx: StateContext) -> None:
    user, realm = ctx.user, ctx.realm
    client_gravatar = ctx.caps.client_gravatar
    if await accessible_user_ids(ctx.conn, user) is None:
        seen = await people.everyone_seen(
            ctx.conn, realm, user, client_gravatar=client_gravatar,
            include_custom_profile_fields=True,
        )  # fmt: skip
        lists = people.register_lists(seen, realm)
        active = list(lists.active)
        own = people.own_object(seen, realm, user, client_gravatar=client_gravatar)
        if own is not None and user.id in lists.active_position:
            active[lists.active_position[user.id]] = replace(own, is_active=UNSET)
        ctx.state["realm_users"] = active
        ctx.state["realm_non_active_users"] = list(lists.non_active)
        system_bots = list(lists.system_bots)
    else:
        everyone = await store.users.list_users(ctx.conn)
        users = [u for u in everyone if not is_system_bot(u, realm.host)]
        system_bots = [u for u in everyone if is_system_bot(u, realm.host) and u.is_active]
        objects = await people.visible_user_objects(
            ctx.conn,
            realm,
            user,
            users,
            client_gravatar=client_gravatar,
            include_custom_profile_fields=True,
            user_list_incomplete=ctx.caps.user_list_incomplete,
        )
        # zulip-compat: the two lists say who is active; their objects carry no is_active.
        ctx.state["realm_users"] = [replace(o, is_active=UNSET) for o in objects if o.is_active]
        ctx.state["realm_non_active_users"] = [
            replace(o, is_active=UNSET) for o in objects if not o.is_active
        ]
    ctx.state["cross_realm_bots"] = cross_realm_bot_objects(realm, user, system_bots)
    me = wire.user_object(user, viewer=user, realm_host=realm.host)
    ctx.state.update(
        user_id=user.id,
        email=me.email,
        delivery_email=user.delivery_email,
        full_name=user.full_name,
        avatar_source=user.avatar_source,
        avatar_url=me.avatar_url,
        avatar_url_medium=me.avatar_url,
        is_admin=user.is_admin,
        is_owner=user.is_owner,
        is_moderator=user.is_moderator,
        is_guest=user.is_guest,
    )
