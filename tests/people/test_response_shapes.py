"""Response shapes Zulip's own validation checks: bot user objects, legacy register keys."""

from __future__ import annotations

from tests.support.api import Api

LEGACY_DISPLAY = {
    "color_scheme", "default_language", "web_home_view", "demote_inactive_streams", "emojiset",
    "enable_drafts_synchronization", "enter_sends", "fluid_layout_width", "high_contrast_mode",
    "left_side_userlist", "starred_message_counts", "translate_emoticons",
    "twenty_four_hour_time",
}  # fmt: skip


def test_bots_carry_owner_and_no_profile_data(owner: Api) -> None:
    owner_id = owner.ok("GET", "/users/me")["user_id"]
    created = owner.ok(
        "POST", "/users/me/bots", full_name="Shape Bot", short_name="shape-bot", bot_type="1"
    )
    bot_id = created["user_id"]
    users = owner.ok("GET", "/users", include_custom_profile_fields="true")["members"]
    by_id = {u["user_id"]: u for u in users}
    assert by_id[bot_id]["bot_owner_id"] == owner_id
    assert "profile_data" not in by_id[bot_id]
    humans = [u for u in users if not u["is_bot"]]
    assert humans and all("bot_owner_id" not in u and "profile_data" in u for u in humans)
    one = owner.ok("GET", f"/users/{bot_id}", include_custom_profile_fields="true")["user"]
    assert "profile_data" not in one and one["bot_owner_id"] == owner_id
    state = owner.ok("POST", "/register", fetch_event_types='["realm_user"]')
    assert "is_billing_admin" not in state
    [system_bot] = [b for b in state["cross_realm_bots"] if b["full_name"] == "Welcome Bot"]
    assert system_bot["bot_owner_id"] is None


def test_legacy_settings_only_for_legacy_clients(owner: Api) -> None:
    types = '["update_display_settings", "update_global_notifications", "user_settings"]'
    legacy = owner.ok("POST", "/register", fetch_event_types=types)
    assert set(legacy) >= LEGACY_DISPLAY
    assert {"enable_sounds", "presence_enabled", "notification_sound"} <= set(legacy)
    # Newer settings live only in user_settings, as in Zulip.
    for newer in (
        "web_font_size_px",
        "user_list_style",
        "enable_followed_topic_push_notifications",
    ):
        assert newer not in legacy and newer in legacy["user_settings"]
    modern = owner.ok(
        "POST",
        "/register",
        fetch_event_types=types,
        client_capabilities='{"user_settings_object": true}',
    )
    assert not (LEGACY_DISPLAY | {"enable_sounds", "timezone"}) & set(modern)


def test_register_names_unknown_parameters(owner: Api) -> None:
    state = owner.ok(
        "POST",
        "/register",
        fetch_event_types='["realm"]',
        not_a_parameter="1",
        apply_markdown="true",
    )
    assert state["ignored_parameters_unsupported"] == ["not_a_parameter"]
