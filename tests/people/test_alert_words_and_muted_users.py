"""Alert words (GET/POST/DELETE /users/me/alert_words) and muted users."""

from __future__ import annotations

from tests.support.api import Api, assert_error
from tests.support.people import events as queued
from tests.support.people import register, verify


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
        "alert_words is not valid JSON",
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


def test_muting_marks_the_muted_users_messages_read(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Busy Reader")
    chatty = make_user(full_name="Chatty Sender")
    sent_ids = [
        chatty.ok("POST", "/messages", type="direct", to=[user.user_id], content=f"hi {n}")["id"]
        for n in range(2)
    ]
    before = user.ok("POST", "/register", fetch_event_types=["update_message_flags"])[
        "unread_msgs"
    ]["count"]
    queue = register(user, event_types=["update_message_flags", "muted_users"])
    user.ok("POST", f"/users/me/muted_users/{chatty.user_id}")
    events = queued(user, queue)
    assert [e["type"] for e in events] == ["update_message_flags", "muted_users"]
    after = user.ok("POST", "/register", fetch_event_types=["update_message_flags"])["unread_msgs"][
        "count"
    ]
    assert after == before - 2
    assert events[0]["op"] == "add" and events[0]["flag"] == "read"
    assert events[0]["messages"] == sent_ids
    fetched = user.ok("GET", f"/messages/{sent_ids[0]}")["message"]
    assert "read" in fetched["flags"]


def test_messages_from_a_muted_user_arrive_read(make_user) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="Muting Reader")
    pest = make_user(full_name="Pest")
    user.ok("POST", f"/users/me/muted_users/{pest.user_id}")
    queue = register(user, event_types=["message"])
    message_id = pest.ok("POST", "/messages", type="direct", to=[user.user_id], content="hey")["id"]
    [event] = queued(user, queue, type="message")
    assert "read" in event["flags"] and event["message"]["id"] == message_id
    user.ok("DELETE", f"/users/me/muted_users/{pest.user_id}")
    later = pest.ok("POST", "/messages", type="direct", to=[user.user_id], content="again")["id"]
    assert "read" not in user.ok("GET", f"/messages/{later}")["message"]["flags"]
