"""Register's `realm_incoming_webhook_bots`: every integration the server serves, and only
those, with the names and event types its registry gives (the web client's Integrations page
builds its list from it)."""

from __future__ import annotations

from teamchat.actions.integrations.incoming_webhooks import LISTED_NAMES, URL_OPTIONS
from teamchat.actions.integrations.webhooks import INTEGRATIONS
from tests.support.api import Api
from tests.support.channels import subscribe, unique_name
from tests.support.server import ServerProcess
from tests.webhooks.support import create_bot, latest, load_fixture, post_webhook


def test_register_lists_every_served_integration(server: ServerProcess, make_user) -> None:  # type: ignore[no-untyped-def]
    person: Api = make_user(full_name="List Reader")
    state = person.ok("POST", "/register", fetch_event_types=["realm_incoming_webhook_bots"])
    listed = state["realm_incoming_webhook_bots"]
    assert [item["name"] for item in listed] == sorted(INTEGRATIONS)
    for item in listed:
        integration = INTEGRATIONS[item["name"]]
        assert set(item) == {
            "name",
            "display_name",
            "all_event_types",
            "config_options",
            "url_options",
        }
        assert item["display_name"] == LISTED_NAMES.get(item["name"], integration.display_name)
        assert item["all_event_types"] == (list(integration.events) or None)
    github = next(item for item in listed if item["name"] == "github")
    assert "push_commits" in github["all_event_types"]
    json_format = next(item for item in listed if item["name"] == "json")
    assert json_format["all_event_types"] is None
    assert json_format["display_name"] == "JSON formatter"  # Zulip's name in its list
    assert set(LISTED_NAMES) <= set(INTEGRATIONS)
    assert [option["key"] for option in github["url_options"]] == [
        "branches",
        "ignore_private_repositories",
    ]
    assert json_format["url_options"] == [] and json_format["config_options"] == []
    assert set(URL_OPTIONS) <= set(INTEGRATIONS)
    # Absent unless asked for, like every other key.
    assert "realm_incoming_webhook_bots" not in person.ok(
        "POST", "/register", fetch_event_types=["realm_user"]
    )


def test_the_listed_url_options_do_what_they_say(server: ServerProcess, make_user) -> None:  # type: ignore[no-untyped-def]
    owner: Api = make_user(full_name="Option Checker")
    bot = create_bot(owner)
    channel = unique_name("options")
    subscribe(owner, channel)
    push = load_fixture("github", "push__1_commit")  # a push to main, public repository
    for params, posted in (
        ({"branches": "release,dev"}, False),
        ({"branches": "dev, main"}, True),
        ({"ignore_private_repositories": "true"}, True),
    ):
        before = len(latest(owner, [{"operator": "channel", "operand": channel}], 50))
        response = post_webhook(
            server.url, "github", push["payload"], push["headers"],
            api_key=bot["api_key"], stream=channel, **params,
        )  # fmt: skip
        assert response.status_code == 200, response.text
        after = len(latest(owner, [{"operator": "channel", "operand": channel}], 50))
        assert after == before + (1 if posted else 0), params


def test_every_listed_integration_answers_at_its_url(server: ServerProcess, make_user) -> None:  # type: ignore[no-untyped-def]
    owner: Api = make_user(full_name="List Checker")
    bot = create_bot(owner)
    state = owner.ok("POST", "/register", fetch_event_types=["realm_incoming_webhook_bots"])
    for item in state["realm_incoming_webhook_bots"]:
        # Not a JSON body: every served integration answers with its own error, never a 404.
        response = post_webhook(server.url, item["name"], b"not json", api_key=bot["api_key"])
        assert response.status_code != 404, (item["name"], response.text)
    unknown = post_webhook(server.url, "no_such_tool", b"{}", api_key=bot["api_key"])
    assert unknown.status_code == 404
