"""PATCH /realm and the realm part of POST /register: settings, permission groups, events."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from teamchat.lib import group_permissions
from tests.support.api import Api, assert_error
from tests.support.org import Watcher, user_with_role
from tests.support.server import ServerProcess
from tests.test_events import check_event_schema

REALM_KEYS = [
    "realm_name",
    "realm_description",
    "realm_waiting_period_threshold",
    "realm_allow_message_editing",
    "realm_message_content_edit_limit_seconds",
    "realm_message_edit_history_visibility_policy",
    "realm_allow_edit_history",
    "realm_topics_policy",
    "realm_mandatory_topics",
    "realm_can_mention_many_users_group",
    "realm_can_invite_users_group",
    "realm_can_create_public_channel_group",
    "realm_can_add_subscribers_group",
    "realm_enable_read_receipts",
    "realm_jitsi_server_url",
    "realm_user_groups",
]


@pytest.fixture(scope="module")
def admin(server: ServerProcess) -> Api:
    return user_with_role(server, "admin")


def system_ids(api: Api) -> dict[str, int]:
    groups = api.ok("GET", "/user_groups")["user_groups"]
    return {g["name"]: g["id"] for g in groups if g["is_system_group"]}


def test_register_has_every_realm_setting_and_server_key(owner: Api) -> None:
    state = owner.ok("POST", "/register", fetch_event_types=["realm"])
    ids = system_ids(owner)
    for name in group_permissions.REALM_PERMISSIONS:
        assert isinstance(state[f"realm_{name}"], int | dict), name
    assert state["realm_can_mention_many_users_group"] == ids["role:administrators"]
    assert state["realm_can_create_web_public_channel_group"] == ids["role:owners"]
    assert state["realm_wildcard_mention_policy"] == 5  # admins
    assert state["realm_wildcard_mention_policy"] in {1, 2, 3, 5, 6, 7}
    assert state["realm_create_public_stream_policy"] == 1
    assert state["realm_authentication_methods"]["Email"]["enabled"] is True
    assert state["realm_default_external_accounts"]["github"]["name"] == "GitHub"
    domains = owner.ok("POST", "/register", fetch_event_types=["realm_domains"])
    assert domains["realm_domains"] == []
    supported_stream = state["server_supported_permission_settings"]["stream"]
    assert supported_stream["can_administer_channel_group"]["default_group_name"] == (
        "channel_creator"
    )
    assert state["server_typing_started_expiry_period_milliseconds"] == 45000
    supported = state["server_supported_permission_settings"]
    assert supported["realm"]["can_access_all_users_group"]["require_system_group"] is True
    assert supported["group"]["can_manage_group"]["default_group_name"] == "group_creator"
    assert state["realm_message_edit_history_visibility_policy"] == "all"
    assert state["realm_allow_edit_history"] is True
    assert state["realm_topics_policy"] == "allow_empty_topic"
    assert state["realm_waiting_period_threshold"] == 0


def test_non_admin_cannot_change_the_realm(make_user: Callable[..., Api]) -> None:
    member = make_user()
    assert_error(
        member.patch("/realm", name="Nope"),
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
    )


def test_admin_changes_settings_and_members_see_events(
    admin: Api, make_user: Callable[..., Api], owner: Api
) -> None:
    watcher = Watcher(make_user(), ["realm"])
    body = admin.ok(
        "PATCH",
        "/realm",
        description="Our place",
        allow_message_editing=False,
        message_content_edit_limit_seconds=1200,
        message_edit_history_visibility_policy="moves",
        topics_policy="disable_empty_topic",
        jitsi_server_url="https://jitsi.example.com",
        enable_read_receipts=False,
        bogus=1,
    )
    assert body["description"] == "updated"
    assert body["allow_message_editing"] is False
    assert body["message_content_edit_limit_seconds"] == 1200
    assert body["ignored_parameters_unsupported"] == ["bogus"]
    events = watcher.events()
    for event in events:
        check_event_schema(event)
    kinds = {(e["op"], e.get("property")) for e in events}
    assert ("update", "description") in kinds
    assert ("update_dict", "default") in kinds
    watcher.check(events, REALM_KEYS)
    # Setting the same values again changes nothing and sends nothing.
    again = admin.ok("PATCH", "/realm", description="Our place", allow_message_editing=False)
    assert "description" not in again and watcher.events() == []
    # Restore for other tests.
    admin.ok(
        "PATCH",
        "/realm",
        allow_message_editing=True,
        message_content_edit_limit_seconds=600,
        message_edit_history_visibility_policy="all",
        topics_policy="allow_empty_topic",
        jitsi_server_url='"default"',
        enable_read_receipts=True,
    )


def test_unlimited_time_limits_and_legacy_allow_edit_history(admin: Api) -> None:
    body = admin.ok("PATCH", "/realm", message_content_delete_limit_seconds='"unlimited"')
    assert body["message_content_delete_limit_seconds"] is None
    state = admin.ok("POST", "/register", fetch_event_types=["realm"])
    assert state["realm_message_content_delete_limit_seconds"] is None
    admin.ok("PATCH", "/realm", allow_edit_history=False)
    state = admin.ok("POST", "/register", fetch_event_types=["realm"])
    assert state["realm_allow_edit_history"] is False
    assert state["realm_message_edit_history_visibility_policy"] == "none"
    admin.ok("PATCH", "/realm", allow_edit_history=True, message_content_delete_limit_seconds=600)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"name": "x" * 41}, "name is too long (limit: 40 characters)"),
        ({"name": "  "}, "Organization name can't be empty"),
        ({"description": "d" * 1001}, "description is too long (limit: 1000 characters)"),
        ({"allow_message_editing": "maybe"}, "allow_message_editing is not valid JSON"),
        ({"allow_message_editing": 3}, "allow_message_editing is not a boolean"),
        (
            {"message_content_edit_limit_seconds": 0},
            "Bad value for 'message_content_edit_limit_seconds': 0",
        ),
        (
            {"message_content_edit_limit_seconds": '"forever"'},
            "Bad value for 'message_content_edit_limit_seconds': forever",
        ),
        (
            {"message_edit_history_visibility_policy": "some"},
            "Invalid message_edit_history_visibility_policy",
        ),
        ({"topics_policy": "never"}, "Invalid topics_policy"),
        ({"default_language": "xx"}, "Invalid language 'xx'"),
        ({"video_chat_provider": 99}, "Invalid video_chat_provider 99"),
        ({"giphy_rating": 9}, "Invalid giphy_rating 9"),
        ({"digest_weekday": 7}, "Invalid digest_weekday"),
        ({"org_type": 3}, "Invalid org_type"),
        ({"jitsi_server_url": '"ftp://x"'}, "jitsi_server_url is not an allowed_type"),
        (
            {"welcome_message_custom_text": "w" * 8001},
            "welcome_message_custom_text is too long (limit: 8000 characters)",
        ),
        ({"new_stream_announcements_stream_id": 12345}, "Invalid channel ID"),
    ],
)
def test_bad_values_are_rejected_and_change_nothing(
    admin: Api, params: dict[str, object], message: str
) -> None:
    before = admin.ok("POST", "/register", fetch_event_types=["realm"])
    # A valid change alongside the bad one is not applied either.
    code = "REQUEST_VARIABLE_INVALID" if message.startswith("Bad value") else "BAD_REQUEST"
    response = admin.patch("/realm", enable_guest_user_indicator=False, **params)
    assert_error(response, message, code)
    after = admin.ok("POST", "/register", fetch_event_types=["realm"])
    assert {k: v for k, v in after.items() if k.startswith("realm_")} == {
        k: v for k, v in before.items() if k.startswith("realm_")
    }


def test_owner_only_settings(admin: Api, owner: Api) -> None:
    for params in (
        {"waiting_period_threshold": 3},
        {"invite_required": False},
        {"message_retention_days": 30},
        {"can_invite_users_group": {"new": 1}},
        {"authentication_methods": {"Email": True}},
    ):
        assert_error(
            admin.patch("/realm", **params),
            "Must be an organization owner",
            "UNAUTHORIZED_PRINCIPAL",
        )
    assert owner.ok("PATCH", "/realm", message_retention_days=30)["message_retention_days"] == 30
    assert (
        owner.ok("PATCH", "/realm", message_retention_days='"unlimited"')["message_retention_days"]
        == -1
    )
    assert_error(
        owner.patch("/realm", authentication_methods={"Email": False}),
        "At least one authentication method must be enabled.",
    )
    assert_error(
        owner.patch("/realm", authentication_methods={"SAML": True}),
        "Invalid authentication method: SAML. Valid methods are: ['Email']",
    )
    assert_error(
        owner.patch("/realm", waiting_period_threshold=-1), "waiting_period_threshold is too small"
    )


def test_group_settings_take_system_named_and_anonymous_groups(
    owner: Api, admin: Api, make_user: Callable[..., Api]
) -> None:
    ids = system_ids(owner)
    member = make_user()
    watcher = Watcher(member, ["realm"])
    body = admin.ok(
        "PATCH",
        "/realm",
        can_mention_many_users_group={"new": ids["role:moderators"]},
        can_add_subscribers_group={
            "new": {
                "direct_members": [member.user_id],
                "direct_subgroups": [ids["role:administrators"]],
            }  # type: ignore[attr-defined]
        },
    )
    assert body["can_mention_many_users_group"] == ids["role:moderators"]
    assert body["can_add_subscribers_group"] == {
        "direct_members": [member.user_id],  # type: ignore[attr-defined]
        "direct_subgroups": [ids["role:administrators"]],
    }
    events = watcher.events()
    # zulip-compat: the derived wildcard_mention_policy follows as a realm/update.
    assert [e["op"] for e in events] == ["update_dict", "update_dict", "update"]
    assert events[2]["property"] == "wildcard_mention_policy" and events[2]["value"] == 7
    for event in events:
        check_event_schema(event)
    watcher.check(events, REALM_KEYS)
    state = member.ok("POST", "/register", fetch_event_types=["realm"])
    assert state["realm_wildcard_mention_policy"] == 7  # moderators
    # An anonymous group of one subgroup is that group; an empty one is role:nobody.
    body = admin.ok(
        "PATCH",
        "/realm",
        can_add_subscribers_group={
            "new": {"direct_members": [], "direct_subgroups": [ids["role:members"]]}
        },
        can_mention_many_users_group={
            "new": {"direct_members": [], "direct_subgroups": []},
            "old": ids["role:moderators"],
        },
    )
    assert body["can_add_subscribers_group"] == ids["role:members"]
    assert body["can_mention_many_users_group"] == ids["role:nobody"]
    admin.ok("PATCH", "/realm", can_mention_many_users_group={"new": ids["role:administrators"]})


def test_group_setting_errors(owner: Api, admin: Api) -> None:
    ids = system_ids(owner)
    cases = [
        ({"can_mention_many_users_group": {"new": 999999}}, "Invalid user group"),
        ({"can_mention_many_users_group": {"old": 1}}, None),
        ({"can_mention_many_users_group": 5}, None),
        (
            {
                "can_mention_many_users_group": {
                    "new": ids["role:everyone"],
                    "old": ids["role:nobody"],
                }
            },
            "'old' value does not match the expected value.",
        ),
        (
            {"can_create_public_channel_group": {"new": ids["role:everyone"]}},
            "'can_create_public_channel_group' setting cannot be set to 'role:everyone' group.",
        ),
        (
            {"can_create_public_channel_group": {"new": ids["role:internet"]}},
            "'can_create_public_channel_group' setting cannot be set to 'role:internet' group.",
        ),
        (
            {"can_manage_billing_group": {"new": ids["role:nobody"]}},
            "Must be an organization owner",
        ),
        (
            {"can_create_web_public_channel_group": {"new": ids["role:members"]}},
            "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group.",
        ),
        (
            {
                "can_access_all_users_group": {
                    "new": {"direct_members": [1], "direct_subgroups": [ids["role:members"]]}
                }
            },
            "'can_access_all_users_group' must be a system user group.",
        ),
        (
            {
                "can_add_subscribers_group": {
                    "new": {"direct_members": [999999], "direct_subgroups": [ids["role:members"]]}
                }
            },
            "Invalid user ID: 999999",
        ),
        (
            {
                "can_add_subscribers_group": {
                    "new": {"direct_members": [1], "direct_subgroups": [999999]}
                }
            },
            "Invalid user group ID: 999999",
        ),
    ]
    for params, message in cases:
        response = admin.patch("/realm", **params)
        code = "UNAUTHORIZED_PRINCIPAL" if message == "Must be an organization owner" else None
        code = "EXPECTATION_MISMATCH" if message and message.startswith("'old'") else code
        assert_error(response, message, code or "BAD_REQUEST")


def test_waiting_period_makes_new_members_provisional(
    owner: Api, make_user: Callable[..., Api]
) -> None:
    ids = system_ids(owner)
    newcomer = make_user()
    watcher = Watcher(newcomer, ["realm", "realm_user_groups", "user_group"])
    owner.ok("PATCH", "/realm", waiting_period_threshold=10)
    events = watcher.events()
    removed = [e for e in events if e["type"] == "user_group"]
    assert removed and removed[0]["op"] == "remove_members"
    assert removed[0]["group_id"] == ids["role:fullmembers"]
    assert newcomer.user_id in removed[0]["user_ids"]  # type: ignore[attr-defined]
    watcher.check(events, ["realm_waiting_period_threshold", "realm_user_groups"])
    member_check = owner.ok(
        "GET",
        f"/user_groups/{ids['role:fullmembers']}/members/{newcomer.user_id}",  # type: ignore[attr-defined]
    )
    assert member_check["is_user_group_member"] is False
    owner.ok("PATCH", "/realm", waiting_period_threshold=0)
    events = watcher.events()
    assert any(e.get("op") == "add_members" for e in events)
    watcher.check(events, ["realm_waiting_period_threshold", "realm_user_groups"])


def test_channel_settings_name_visible_channels(admin: Api, owner: Api) -> None:
    name = f"announcements {id(admin)}"
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": name}])
    channel = owner.ok("GET", "/get_stream_id", stream=name)["stream_id"]
    watcher = Watcher(owner, ["realm"])
    body = admin.ok("PATCH", "/realm", new_stream_announcements_stream_id=channel)
    assert body["new_stream_announcements_stream_id"] == channel
    events = watcher.events()
    assert [(e["property"], e["value"]) for e in events] == [
        ("new_stream_announcements_stream_id", channel)
    ]
    watcher.check(events, ["realm_new_stream_announcements_stream_id"])
    # Administrators may name a private channel they are not subscribed to (metadata access).
    secret = f"secret {id(admin)}"
    owner.ok("POST", "/users/me/subscriptions", subscriptions=[{"name": secret}], invite_only=True)
    hidden = owner.ok("GET", "/get_stream_id", stream=secret)["stream_id"]
    admin.ok("PATCH", "/realm", signup_announcements_stream_id=hidden)
    admin.ok("PATCH", "/realm", signup_announcements_stream_id=-1)
    admin.ok("PATCH", "/realm", new_stream_announcements_stream_id=-1)
