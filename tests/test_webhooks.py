"""POST /api/v1/external/{integration}: authentication, the URL's options and Zulip's errors,
shared by every integration (GitHub's payloads serve as the example)."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.support.api import Api, JsonDict, assert_error, assert_success
from tests.support.server import ServerProcess
from tests.webhooks.support import Hook, create_bot, in_channel, load_fixture, newest

ISSUE = load_fixture("github", "issues__opened")
HEADERS = {"X-GitHub-Event": "issues"}


@pytest.fixture()
def hook(server: ServerProcess, make_user) -> Hook:  # type: ignore[no-untyped-def]
    return Hook(server.url, make_user(full_name="Hook Owner"), "github")


def owner_notice(owner: Api) -> JsonDict:
    message = newest(owner, [{"operator": "is", "operand": "dm"}])
    assert message is not None and message["sender_full_name"] == "Notification Bot", message
    return message


def test_a_wrong_key_is_invalid_and_a_malformed_key_is_refused(hook: Hook) -> None:
    wrong = hook.post(ISSUE["payload"], HEADERS, stream=hook.channel, api_key="a" * 32)
    assert_error(wrong, "Invalid API key", "UNAUTHORIZED", 401)
    malformed = hook.post(ISSUE["payload"], HEADERS, stream=hook.channel, api_key="nope")
    assert_error(malformed, "Malformed API key", "UNAUTHORIZED", 401)


def test_without_a_key_the_api_key_argument_is_missing(hook: Hook, server: ServerProcess) -> None:
    response = httpx.post(f"{server.url}/api/v1/external/github", json=ISSUE["payload"])
    assert_error(response, "Missing 'api_key' argument", "REQUEST_VARIABLE_MISSING")


def test_http_basic_authenticates_a_webhook_too(hook: Hook, server: ServerProcess) -> None:
    response = httpx.post(
        f"{server.url}/api/v1/external/github",
        params={"stream": hook.channel},
        json=ISSUE["payload"],
        headers=HEADERS,
        auth=(hook.bot["email"] if "email" in hook.bot else _bot_email(hook), hook.bot["api_key"]),
    )
    assert_success(response)
    message = newest(hook.owner, in_channel(hook.channel))
    assert message is not None and message["content"] == ISSUE["expected"]["content"]


def _bot_email(hook: Hook) -> str:
    bots = hook.owner.ok("GET", "/users/me/bots")["bots"]
    return next(b["username"] for b in bots if b["user_id"] == hook.bot["user_id"])


def test_a_generic_bot_may_post_to_an_integration_url(hook: Hook, server: ServerProcess) -> None:
    generic = create_bot(hook.owner, bot_type=1)
    response = hook.post(ISSUE["payload"], HEADERS, stream=hook.channel, api_key=generic["api_key"])
    assert_success(response)
    message = newest(hook.owner, in_channel(hook.channel))
    assert message is not None and message["sender_id"] == generic["user_id"]


def test_an_incoming_webhook_bot_cannot_use_the_rest_of_the_api(
    hook: Hook, server: ServerProcess
) -> None:
    bot = Api(server.url, _bot_email(hook), hook.bot["api_key"])
    assert_error(bot.get("/users/me"), "This API is not available to incoming webhook bots.")
    bot.close()


def test_an_unknown_integration_is_not_found(hook: Hook, server: ServerProcess) -> None:
    response = httpx.post(
        f"{server.url}/api/v1/external/nosuchtool",
        params={"api_key": hook.bot["api_key"]},
        json={},
    )
    assert response.status_code == 404 and response.json()["result"] == "error"


def test_an_unsupported_event_is_acknowledged_with_zulips_answer(hook: Hook) -> None:
    response = hook.post(
        {"action": "queued", "sender": {"login": "octocat"}},
        {"X-GitHub-Event": "workflow_job"},
        stream=hook.channel,
    )
    assert response.status_code == 200
    assert response.json() == {
        "result": "success",
        "msg": "The 'workflow_job:queued' event isn't currently supported by the GitHub webhook;"
        " ignoring",
        "code": "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
        "webhook_name": "GitHub",
        "event_type": "workflow_job:queued",
    }


def test_a_missing_event_header_is_a_400_and_the_owner_is_told(hook: Hook) -> None:
    response = hook.post(ISSUE["payload"], stream=hook.channel)
    body = assert_error(
        response, "Missing the HTTP event header 'X-GitHub-Event'", "MISSING_HTTP_EVENT_HEADER"
    )
    assert body["header"] == "X-GitHub-Event" and body["webhook_name"] == "GitHub"
    notice = owner_notice(hook.owner)["content"]
    assert notice.startswith("Hi there!  Your bot Hook hook") and "just sent an HTTP" in notice
    assert "/api/v1/external/github that\nis missing the HTTP X-GitHub-Event header." in notice


def test_malformed_json_is_a_400_and_the_owner_is_told(hook: Hook) -> None:
    response = hook.post(b"{not json", HEADERS, stream=hook.channel)
    assert_error(response, "Malformed JSON", "INVALID_JSON")
    assert owner_notice(hook.owner)["content"].startswith(
        "Hi there! It looks like you tried to set up the Zulip GitHub integration,"
    )


def test_a_payload_of_another_shape_is_anomalous_not_a_crash(hook: Hook) -> None:
    response = hook.post({"issue": "not an object"}, HEADERS, stream=hook.channel)
    assert_error(
        response,
        "Unable to parse request: Did GitHub generate this event?",
        "ANOMALOUS_WEBHOOK_PAYLOAD",
    )


def test_an_unknown_channel_tells_the_owner_through_notification_bot(hook: Hook) -> None:
    assert_success(hook.post(ISSUE["payload"], HEADERS, stream="no such channel"))
    email = _bot_email(hook)
    assert owner_notice(hook.owner)["content"] == (
        f"Your bot `{email}` tried to send a message to channel #**no such channel**, but that"
        " channel does not exist. Click [here](#channels/new) to create it."
    )


def test_a_channel_may_be_named_by_id(hook: Hook) -> None:
    channel_id = hook.owner.ok("GET", "/get_stream_id", stream=hook.channel)["stream_id"]
    assert_success(hook.post(ISSUE["payload"], HEADERS, stream=str(channel_id)))
    message = newest(hook.owner, in_channel(hook.channel))
    assert message is not None and message["subject"] == ISSUE["expected"]["topic"]


def test_without_a_channel_the_message_goes_to_the_owner(hook: Hook) -> None:
    assert_success(hook.post(ISSUE["payload"], HEADERS))
    message = newest(hook.owner, [{"operator": "is", "operand": "dm"}])
    assert message is not None and message["sender_id"] == hook.bot["user_id"]
    assert message["content"] == ISSUE["expected"]["content"]


@pytest.mark.parametrize(
    ("options", "sent"),
    [
        ({"only_events": ["push_commits"]}, False),
        ({"only_events": ["issue*"]}, True),
        ({"exclude_events": ["issues"]}, False),
        ({"exclude_events": ["push*"]}, True),
    ],
)
def test_only_events_and_exclude_events_match_zulips_event_names(
    hook: Hook, options: JsonDict, sent: bool
) -> None:
    before = newest(hook.owner, in_channel(hook.channel))
    assert_success(hook.post(ISSUE["payload"], HEADERS, stream=hook.channel, **options))
    after = newest(hook.owner, in_channel(hook.channel))
    assert (after != before) == sent


def test_a_payload_cannot_mention_everyone_or_anyone(hook: Hook) -> None:
    payload = json.loads(json.dumps(ISSUE["payload"]))
    payload["issue"]["body"] = "Deploy now @**all** and @**Hook Owner** and @*everyone*"
    assert_success(hook.post(payload, HEADERS, stream=hook.channel))
    message = newest(hook.owner, in_channel(hook.channel))
    assert message is not None
    assert "@_**all** and @_**Hook Owner** and @_*everyone*" in message["content"]
    assert not {"mentioned", "wildcard_mentioned"} & set(message["flags"])


def test_a_deactivated_bot_is_refused(hook: Hook) -> None:
    hook.owner.ok("DELETE", f"/bots/{hook.bot['user_id']}")
    response = hook.post(ISSUE["payload"], HEADERS, stream=hook.channel)
    assert_error(response, "Account is deactivated", "USER_DEACTIVATED", 401)


def test_a_json_body_sent_as_a_form_is_still_read(hook: Hook) -> None:
    # Some tools (Grafana 7) label their JSON body as a form.
    response = hook.post(
        json.dumps(ISSUE["payload"]),
        {**HEADERS, "Content-Type": "application/x-www-form-urlencoded"},
        stream=hook.channel,
    )
    assert_success(response)
    message = newest(hook.owner, in_channel(hook.channel))
    assert message is not None and message["content"] == ISSUE["expected"]["content"]
