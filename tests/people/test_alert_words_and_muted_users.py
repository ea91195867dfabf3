"""Alert words (GET/POST/DELETE /users/me/alert_words) and muted users."""

from __future__ import annotations

from tests.support.api import Api, assert_error
from tests.support.people import verify


def test_adding_and_removing_alert_words(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Alert Person")
    assert user.ok("GET", "/users/me/alert_words")["alert_words"] == []
    added: list[dict] = []  # type: ignore[type-arg]
    sent = verify(
        user,
        lambda: added.append(
            user.ok("POST", "/users/me/alert_words", alert_words=[" Deploy ", "", "outage"])
        ),
    )
    assert added[0]["alert_words"] == ["Deploy", "outage"]
    assert [e["alert_words"] for e in sent] == [["Deploy", "outage"]]
    # Words already there in any case are not added twice.
    body = user.ok("POST", "/users/me/alert_words", alert_words=["DEPLOY", "pager", "Pager"])
    assert body["alert_words"] == ["Deploy", "outage", "Pager"]
    removed = verify(
        user, lambda: user.ok("DELETE", "/users/me/alert_words", alert_words=["deploy", "nothing"])
    )
    assert removed[0]["alert_words"] == ["outage", "Pager"]
    assert user.ok("GET", "/users/me/alert_words")["alert_words"] == ["outage", "Pager"]
    assert user.ok("POST", "/register", fetch_event_types=["alert_words"])["alert_words"] == [
        "outage",
        "Pager",
    ]


def test_alert_word_errors(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Alert Breaker")
    assert_error(
        user.post("/users/me/alert_words"),
        "Missing 'alert_words' argument",
        "REQUEST_VARIABLE_MISSING",
    )
    assert_error(
        user.post("/users/me/alert_words", alert_words="deploy"),
        'Argument "alert_words" is not valid JSON.',
    )
    assert_error(
        user.post("/users/me/alert_words", alert_words=[1]), "alert_words[0] is not a string"
    )
    assert_error(
        user.post("/users/me/alert_words", alert_words=["x" * 101]),
        "alert_words[0] is too long (limit: 100 characters)",
    )
    body = user.ok("POST", "/users/me/alert_words", alert_words=["ok"], extra=1)
    assert body["ignored_parameters_unsupported"] == ["extra"]


def test_muting_and_unmuting_users(make_user, owner: Api) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Muter")
    noisy = make_user(full_name="Noisy")
    sent = verify(user, lambda: user.ok("POST", f"/users/me/muted_users/{noisy.user_id}"))
    [event] = sent
    assert [m["id"] for m in event["muted_users"]] == [noisy.user_id]
    assert isinstance(event["muted_users"][0]["timestamp"], int)
    assert_error(user.post(f"/users/me/muted_users/{noisy.user_id}"), "User already muted")
    assert_error(user.post(f"/users/me/muted_users/{user.user_id}"), "Cannot mute self")
    assert_error(user.post("/users/me/muted_users/999999"), "No such user")
    # Bots and deactivated users can be muted too.
    bot = user.ok("POST", "/users/me/bots", full_name="Mutable Bot", short_name="mutablebot")
    user.ok("POST", f"/users/me/muted_users/{bot['user_id']}")
    gone = make_user(full_name="Gone Noisy")
    owner.ok("DELETE", f"/users/{gone.user_id}")
    user.ok("POST", f"/users/me/muted_users/{gone.user_id}")
    state = user.ok("POST", "/register", fetch_event_types=["muted_users"])
    assert [m["id"] for m in state["muted_users"]] == [noisy.user_id, bot["user_id"], gone.user_id]
    unmuted = verify(user, lambda: user.ok("DELETE", f"/users/me/muted_users/{noisy.user_id}"))
    assert [m["id"] for m in unmuted[0]["muted_users"]] == [bot["user_id"], gone.user_id]
    assert_error(user.delete(f"/users/me/muted_users/{noisy.user_id}"), "User is not muted")
    assert_error(user.delete("/users/me/muted_users/999999"), "No such user")
