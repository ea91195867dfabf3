"""POST /realm/test_welcome_bot_custom_message: administrators preview the Welcome Bot's
custom message in their own direct messages."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.api import Api, assert_error


def test_preview_welcome_message(owner: Api, make_user: Callable[..., Api]) -> None:
    text = "Welcome aboard! Read **#general** first."
    message_id = owner.ok(
        "POST", "/realm/test_welcome_bot_custom_message", welcome_message_custom_text=text
    )["message_id"]
    message = owner.ok("GET", f"/messages/{message_id}", apply_markdown="false")["message"]
    assert message["content"] == text
    assert message["sender_email"].startswith("welcome-bot")
    assert message["type"] == "private"
    member = make_user("Welcome Previewer")
    assert_error(
        member.post("/realm/test_welcome_bot_custom_message", welcome_message_custom_text="hi"),
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
    )
    assert_error(
        owner.post(
            "/realm/test_welcome_bot_custom_message", welcome_message_custom_text="x" * 8001
        ),
        "welcome_message_custom_text is too long (limit: 8000 characters)",
    )
    assert_error(
        owner.post("/realm/test_welcome_bot_custom_message"),
        "Missing 'welcome_message_custom_text' argument",
        "REQUEST_VARIABLE_MISSING",
    )
