"""PATCH /settings: personal settings, their events for modern and legacy clients."""

from __future__ import annotations

from tests.support.api import Api, assert_error
from tests.support.people import events, login, make_role_user, register, verify
from tests.support.server import ServerProcess

LEGACY = {"client_capabilities": {}}


def test_a_display_setting_for_modern_and_legacy_clients(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Clock Person")
    modern = verify(user, lambda: user.ok("PATCH", "/settings", twenty_four_hour_time=True))
    assert [(e["type"], e["property"], e["value"]) for e in modern] == [
        ("user_settings", "twenty_four_hour_time", True)
    ]
    legacy = verify(
        user, lambda: user.ok("PATCH", "/settings", twenty_four_hour_time=False), **LEGACY
    )
    assert [e["type"] for e in legacy] == ["user_settings", "update_display_settings"]
    assert legacy[1]["setting_name"] == "twenty_four_hour_time" and legacy[1]["setting"] is False
    assert legacy[1]["user"] == user.email
    state = user.ok("POST", "/register", **LEGACY)
    assert (
        state["twenty_four_hour_time"] is False and "pm_content_in_desktop_notifications" in state
    )
    assert state["user_settings"]["twenty_four_hour_time"] is False
    modern_state = user.ok("POST", "/register", client_capabilities={"user_settings_object": True})
    assert "twenty_four_hour_time" not in modern_state
    assert modern_state["user_settings"]["available_notification_sounds"]
    assert {"key": "text", "text": "Plain text"} in modern_state["user_settings"][
        "emojiset_choices"
    ]


def test_notification_settings_and_language_names(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Quiet Person")
    sent = verify(user, lambda: user.ok("PATCH", "/settings", enable_sounds=False), **LEGACY)
    assert [e["type"] for e in sent] == ["user_settings", "update_global_notifications"]
    assert sent[1]["notification_name"] == "enable_sounds" and sent[1]["setting"] is False
    sent = verify(user, lambda: user.ok("PATCH", "/settings", default_language="de"), **LEGACY)
    assert sent[0]["language_name"] == "German" and sent[1]["language_name"] == "German"
    # An unchanged value sends nothing.
    assert verify(user, lambda: user.ok("PATCH", "/settings", enable_sounds=False)) == []


def test_invalid_settings_are_rejected_and_change_nothing(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Careful Person")
    cases = [
        ({"color_scheme": 7}, "Invalid color_scheme"),
        (
            {"web_home_view": "bogus"},
            "Invalid web_home_view: Value error, Not in the list of possible values",
        ),
        (
            {"emojiset": "comic"},
            "Invalid emojiset: Value error, Not in the list of possible values",
        ),
        ({"enter_sends": "maybe"}, "enter_sends is not valid JSON"),
        ({"enter_sends": '"yes"'}, "enter_sends is not a boolean"),
        ({"web_font_size_px": "big"}, "web_font_size_px is not valid JSON"),
        ({"web_font_size_px": "14.5"}, "web_font_size_px is not an integer"),
        ({"notification_sound": "boing"}, "Invalid notification sound 'boing'"),
        ({"default_language": "xx"}, "Invalid default_language"),
        (
            {"email_notifications_batching_period_seconds": 0},
            "Invalid email batching period: 0 seconds",
        ),
        (
            {"timezone": "Mars/Olympus_Mons"},
            "Invalid timezone: Value error, Not a recognized time zone",
        ),
        ({"enter_sends": True, "user_list_style": 9}, "Invalid user_list_style"),
    ]
    for params, msg in cases:
        assert_error(user.patch("/settings", **params), msg)
    assert user.ok("POST", "/register")["user_settings"]["enter_sends"] is False
    body = user.ok("PATCH", "/settings", enter_sends=True, dense_mode=True)
    assert body["ignored_parameters_unsupported"] == ["dense_mode"]


def test_time_zone_and_name_reach_everyone(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Traveller")
    observer = make_user(full_name="Stay At Home")
    sent = verify(observer, lambda: user.ok("PATCH", "/settings", timezone="Asia/Tokyo"))
    assert [e["person"] for e in sent] == [
        {"user_id": user.user_id, "email": user.email, "timezone": "Asia/Tokyo"}
    ]
    mine = verify(user, lambda: user.ok("PATCH", "/settings", timezone="Europe/Paris"))
    assert {e["type"] for e in mine} == {"user_settings", "realm_user"}
    sent = verify(observer, lambda: user.ok("PATCH", "/settings", full_name="World Traveller"))
    assert [e["person"] for e in sent] == [
        {"user_id": user.user_id, "full_name": "World Traveller"}
    ]
    assert_error(user.patch("/settings", full_name="x" * 101), "Name too long!")


def test_changing_the_password(make_user, server: ServerProcess) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Password Changer")
    assert_error(
        user.patch("/settings", old_password="wrong", new_password="brand-new-pass"),
        "Wrong password!",
    )
    assert_error(
        user.patch("/settings", old_password="correct-horse-battery", new_password="aa"),
        "New password is too weak!",
    )
    user.ok(
        "PATCH", "/settings", old_password="correct-horse-battery", new_password="brand-new-pass"
    )
    login(server.url, user.email, "brand-new-pass").close()


def test_email_address_visibility_hides_the_real_address(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Private Person")
    member = make_user(full_name="Curious Member")
    admin = make_role_user(owner, make_user, 200, "Trusted Admin")
    queue = register(admin)
    sent = verify(member, lambda: user.ok("PATCH", "/settings", email_address_visibility=3))
    host = member.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    dummy = f"user{user.user_id}@{host}"
    persons = [e["person"] for e in sent]
    assert {"user_id": user.user_id, "delivery_email": None} in persons
    assert {"user_id": user.user_id, "new_email": dummy} in persons
    seen = member.ok("GET", f"/users/{user.user_id}")["user"]
    assert seen["email"] == dummy and seen["delivery_email"] is None
    assert admin.ok("GET", f"/users/{user.user_id}")["user"]["delivery_email"] == user.email
    admin_persons = [e["person"] for e in events(admin, queue, type="realm_user")]
    assert admin_persons == [{"user_id": user.user_id, "new_email": dummy}]
    assert_error(member.get(f"/users/{user.email}"), "No such user")
    assert member.ok("GET", f"/users/{dummy}")["user"]["user_id"] == user.user_id
    assert admin.ok("GET", f"/users/{user.email}")["user"]["user_id"] == user.user_id
    # The API email is now the dummy one, and it authenticates.
    with Api(member.base_url, dummy, user.api_key) as as_dummy:
        assert as_dummy.ok("GET", "/users/me")["email"] == dummy
    back = verify(member, lambda: user.ok("PATCH", "/settings", email_address_visibility=1))
    assert {"user_id": user.user_id, "delivery_email": user.email} in [e["person"] for e in back]


def test_bots_have_no_settings_endpoint(make_user, server: ServerProcess) -> None:  # type: ignore[no-untyped-def]
    creator = make_user(full_name="Settings Bot Owner")
    body = creator.ok("POST", "/users/me/bots", full_name="Settings Bot", short_name="setbot")
    host = creator.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    with Api(server.url, f"setbot-bot@{host}", body["api_key"]) as bot:
        assert_error(
            bot.patch("/settings", enter_sends=True), "This endpoint does not accept bot requests."
        )


def test_legacy_settings_paths_still_work(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Old Client")
    user.ok("PATCH", "/settings/display", left_side_userlist=True)
    user.ok("PATCH", "/settings/notifications", enable_digest_emails=False)
    settings = user.ok("POST", "/register")["user_settings"]
    assert settings["left_side_userlist"] is True and settings["enable_digest_emails"] is False
