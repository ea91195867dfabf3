"""The people keys real clients read at register (CLIENTS.md 3a, 3b; pitfalls 8 and 9)."""

from __future__ import annotations

from tests.support.api import Api

ZT_070_FETCH = [
    "realm",
    "presence",
    "subscription",
    "message",
    "update_message_flags",
    "muted_topics",
    "realm_user",
    "realm_user_groups",
    "update_global_notifications",
    "update_display_settings",
    "realm_emoji",
    "zulip_version",
]
FLUTTER_CAPABILITIES = {
    "notification_settings_null": True,
    "bulk_message_deletion": True,
    "user_avatar_url_field_optional": True,
    "stream_typing_notifications": True,
    "user_settings_object": True,
    "include_deactivated_groups": True,
    "empty_topic_name": True,
    "individual_emoji_changes": True,
}


def test_zulip_terminal_070_gets_legacy_presence_and_settings(owner: Api) -> None:
    owner.ok("POST", "/users/me/presence", status="active", new_user_input=True)
    state = owner.ok(
        "POST",
        "/register",
        fetch_event_types=ZT_070_FETCH,
        client_gravatar=True,
        apply_markdown=True,
    )
    entry = state["presences"][owner.email]
    assert entry["aggregated"]["status"] == "active" and "timestamp" in entry["aggregated"]
    assert isinstance(state["twenty_four_hour_time"], bool)
    assert isinstance(state["pm_content_in_desktop_notifications"], bool)
    me = [u for u in state["realm_users"] if u["user_id"] == state["user_id"]]
    assert me and me[0]["email"] == owner.email


def test_flutter_gets_slim_presence_and_every_people_key(owner: Api) -> None:
    owner.ok("POST", "/users/me/presence", status="active", slim_presence=True, ping_only=True)
    state = owner.ok(
        "POST",
        "/register",
        idle_queue_timeout="mobile",
        apply_markdown=True,
        client_gravatar=False,
        slim_presence=True,
        client_capabilities=FLUTTER_CAPABILITIES,
    )
    assert isinstance(state["alert_words"], list)
    for field in state["custom_profile_fields"]:
        assert isinstance(field["field_data"], str) and isinstance(field["order"], int)
    assert isinstance(state["muted_users"], list)
    me = state["presences"][str(state["user_id"])]
    assert set(me) == {"active_timestamp", "idle_timestamp"}
    assert state["server_presence_ping_interval_seconds"] == 60
    assert state["server_presence_offline_threshold_seconds"] == 200
    assert isinstance(state["user_status"], dict)
    settings = state["user_settings"]
    for key in (
        "twenty_four_hour_time",
        "starred_message_counts",
        "display_emoji_reaction_users",
        "emojiset",
        "presence_enabled",
        "web_inbox_show_channel_folders",
    ):
        assert key in settings, key
    assert "twenty_four_hour_time" not in state  # no legacy keys with user_settings_object
    assert isinstance(state["realm_default_external_accounts"], dict)
