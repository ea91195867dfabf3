"""User status: POST /users/me/status, POST /users/{id}/status (administrators), GET status."""

from __future__ import annotations

from tests.support.api import Api, assert_error
from tests.support.people import make_role_user, verify
from tests.support.realm_emoji import upload_ok
from tests.support.server import ServerProcess


def status_of(api: Api, user_id: int) -> dict:  # type: ignore[type-arg]
    return api.ok("GET", f"/users/{user_id}/status")["status"]  # type: ignore[no-any-return]


def test_setting_and_clearing_ones_status(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Status Setter")
    observer = make_user(full_name="Status Reader")
    assert status_of(observer, user.user_id) == {}
    sent = verify(
        observer,
        lambda: user.ok(
            "POST",
            "/users/me/status",
            status_text="  On vacation ",
            emoji_name="car",
            emoji_code="1f697",
            reaction_type="unicode_emoji",
        ),
    )
    expected = {
        "status_text": "On vacation",
        "emoji_name": "car",
        "emoji_code": "1f697",
        "reaction_type": "unicode_emoji",
    }
    assert [e for e in sent if e["type"] == "user_status"] == [
        {"type": "user_status", "id": sent[0]["id"], "user_id": user.user_id, **expected}
    ]
    assert status_of(observer, user.user_id) == expected
    # A name alone is looked up; status text stays as it was.
    verify(observer, lambda: user.ok("POST", "/users/me/status", emoji_name="tada"))
    assert status_of(observer, user.user_id)["emoji_code"] == "1f389"
    cleared = verify(
        observer, lambda: user.ok("POST", "/users/me/status", status_text="", emoji_name="")
    )
    assert cleared[0]["status_text"] == "" and cleared[0]["emoji_code"] == ""
    assert status_of(observer, user.user_id) == {}
    state = observer.ok("POST", "/register", fetch_event_types=["user_status"])
    assert str(user.user_id) not in state["user_status"]


def test_status_errors(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Status Breaker")
    must_name = "Client must pass emoji_name if they pass either emoji_code or reaction_type."
    cases = [
        ({}, "Client did not pass any new values."),
        ({"status_text": "x" * 61}, "status_text is too long (limit: 60 characters)"),
        ({"emoji_code": "1f697"}, must_name),
        ({"reaction_type": "unicode_emoji"}, must_name),
        ({"emoji_name": "no_such_emoji"}, "Emoji 'no_such_emoji' does not exist"),
        ({"emoji_name": "car", "emoji_code": "1f389"}, "Invalid emoji name."),
        ({"emoji_name": "car", "emoji_code": "zzzz"}, "Invalid emoji code."),
        (
            {"emoji_name": "car", "emoji_code": "1f697", "reaction_type": "sticker"},
            "Invalid emoji type.",
        ),
        (
            {"emoji_name": "parrot", "emoji_code": "999999", "reaction_type": "realm_emoji"},
            "Invalid custom emoji.",
        ),
        (
            {"emoji_name": "zulip", "emoji_code": "other", "reaction_type": "zulip_extra_emoji"},
            "Invalid emoji code.",
        ),
    ]
    for params, msg in cases:
        assert_error(user.post("/users/me/status", **params), msg)
    assert status_of(user, user.user_id) == {}
    user.ok("POST", "/users/me/status", status_text="x" * 60)
    user.ok("POST", "/users/me/status", emoji_name="zulip", reaction_type="service_extra_emoji")
    status = status_of(user, user.user_id)
    assert (status["emoji_code"], status["reaction_type"]) == ("zulip", "zulip_extra_emoji")


def test_administrators_set_other_peoples_status(
    owner: Api, make_user, server: ServerProcess
) -> None:  # type: ignore[no-untyped-def]
    member = make_user(full_name="Status Subject")
    admin = make_role_user(owner, make_user, 200, "Status Admin")
    sent = verify(
        member,
        lambda: admin.ok("POST", f"/users/{member.user_id}/status", status_text="In a meeting"),
    )
    assert sent[0]["status_text"] == "In a meeting" and sent[0]["user_id"] == member.user_id
    assert status_of(member, member.user_id)["status_text"] == "In a meeting"
    other = make_user(full_name="Status Meddler")
    assert_error(
        other.post(f"/users/{member.user_id}/status", status_text="Hacked"),
        "Insufficient permission",
    )
    assert_error(
        admin.post(f"/users/{member.user_id}/status"), "Client did not pass any new values."
    )
    assert_error(admin.post("/users/999999/status", status_text="x"), "No such user")
    bot = member.ok("POST", "/users/me/bots", full_name="Status Bot", short_name="statusbot")
    assert_error(admin.post(f"/users/{bot['user_id']}/status", status_text="x"), "No such user")
    gone = make_user(full_name="Status Gone")
    owner.ok("DELETE", f"/users/{gone.user_id}")
    assert_error(
        admin.post(f"/users/{gone.user_id}/status", status_text="x"), "User is deactivated"
    )
    host = member.ok("POST", "/register", fetch_event_types=["realm"])["realm_bot_domain"]
    with Api(server.url, f"statusbot-bot@{host}", bot["api_key"]) as as_bot:
        assert_error(
            as_bot.post("/users/me/status", status_text="beep"),
            "This endpoint does not accept bot requests.",
        )
    assert_error(other.get("/users/999999/status"), "No such user")


def test_away_is_the_inverse_of_presence_enabled(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Away Person")
    mine = verify(user, lambda: user.ok("POST", "/users/me/status", away=True))
    kinds = [(e["type"], e.get("property")) for e in mine]
    assert ("user_settings", "presence_enabled") in kinds and ("user_status", None) in kinds
    assert user.ok("POST", "/register")["user_settings"]["presence_enabled"] is False
    assert status_of(user, user.user_id) == {"away": True}
    verify(user, lambda: user.ok("POST", "/users/me/status", away=False))
    assert status_of(user, user.user_id) == {}
    verify(user, lambda: user.ok("PATCH", "/settings", presence_enabled=False))
    assert status_of(user, user.user_id) == {"away": True}


def test_custom_emoji_in_a_status(owner: Api, make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Custom Emoji Fan")
    name = f"status-parrot-{user.user_id}"
    emoji_id = upload_ok(owner, name)["id"]
    sent = verify(user, lambda: user.ok("POST", "/users/me/status", emoji_name=name))
    assert (sent[0]["emoji_code"], sent[0]["reaction_type"]) == (emoji_id, "realm_emoji")
    assert_error(
        user.post(
            "/users/me/status", emoji_name="other", emoji_code=emoji_id, reaction_type="realm_emoji"
        ),
        "Invalid custom emoji name.",
    )
    assert_error(
        user.post(
            "/users/me/status", emoji_name=name, emoji_code="999999", reaction_type="realm_emoji"
        ),
        "Invalid custom emoji.",
    )
    owner.ok("DELETE", f"/realm/emoji/{name}")
    assert_error(
        user.post(
            "/users/me/status", emoji_name=name, emoji_code=emoji_id, reaction_type="realm_emoji"
        ),
        "This custom emoji has been deactivated.",
    )
