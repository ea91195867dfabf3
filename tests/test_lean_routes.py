"""The lean path of the hottest routes (http/lean.py) answers exactly as the framework's route.

Two servers are built the same way through the API, one with the lean path off
(TEAMCHAT_LEAN_ROUTES=0); each gets the same requests, and the answers (status, headers,
JSON) and the events they cause must be the same, apart from times, queue ids and the
server's own address. The access log shows which requests the lean path answered."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import TEST_PASSWORD, database_url
from tests.support.api import Api, assert_success
from tests.support.server import ServerProcess, cli
from tests.support.web import browser, log_in

TIME_KEYS = {"timestamp", "date_joined", "last_edit_timestamp", "retry-after",
             "server_timestamp", "active_timestamp", "idle_timestamp", "date_created",
             "realm_date_created", "server_generation"}  # fmt: skip
SKIPPED_HEADERS = {"date", "server"}  # uvicorn's own


class Side:
    """One server of the pair and the people on it (made in the same order on both)."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.owner = Api(server.url, server.owner_email, server.owner_key)
        self.people: dict[str, Api] = {}
        self.ids: dict[str, int] = {}

    def person(self, name: str) -> Api:
        email = f"{name}@lean.test"
        assert_success(self.owner.post("/users", email=email, password=TEST_PASSWORD,
                                       full_name=name.title()))  # fmt: skip
        key = assert_success(
            httpx.post(f"{self.server.url}/api/v1/fetch_api_key",
                       data={"username": email, "password": TEST_PASSWORD})
        )  # fmt: skip
        api = Api(self.server.url, email, key["api_key"])
        self.people[name], self.ids[name] = api, key["user_id"]
        return api

    def answer(self, response: httpx.Response) -> tuple[int, dict[str, str], Any]:
        headers = {k: v for k, v in response.headers.items() if k not in SKIPPED_HEADERS}
        assert int(headers.pop("content-length")) == len(response.content)  # times vary in length
        return response.status_code, headers, self.plain(response.json())

    def plain(self, data: Any) -> Any:
        """`data` without what differs between two servers built alike."""
        if isinstance(data, dict):
            return {
                k: None if k in TIME_KEYS or k == "queue_id" else self.plain(v)
                for k, v in data.items()
            }
        if isinstance(data, list):
            return [self.plain(item) for item in data]
        if isinstance(data, str):
            return data.replace(self.server.url, "URL")
        return data

    def register(self, name: str) -> str:
        body = self.people[name].ok("POST", "/register", event_types='["message","typing"]')
        return str(body["queue_id"])

    def events(self, name: str, queue_id: str) -> Any:
        body = self.people[name].ok(
            "GET", "/events", queue_id=queue_id, last_event_id=-1, dont_block="true"
        )
        return self.plain(body["events"])

    def lean_lines(self, request: str) -> list[str]:
        """The access log's lines of requests the lean path answered."""
        return re.findall(rf"^.* {request} [0-9]+ .* lean$", self.server.log(), re.M)


@pytest.fixture(scope="module")
def pair(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[tuple[Side, Side]]:
    lean, route = tmp_path_factory.mktemp("lean"), tmp_path_factory.mktemp("route")
    servers = [
        ServerProcess(lean, database_url=database_url(request)).start(),
        ServerProcess(
            route, {"TEAMCHAT_LEAN_ROUTES": "0"}, database_url=database_url(request)
        ).start(),
    ]
    yield Side(servers[0]), Side(servers[1])
    for server in servers:
        server.stop()


def both(pair: tuple[Side, Side], act: Any) -> tuple[Any, Any]:
    return act(pair[0]), act(pair[1])


def test_sends_answer_and_publish_the_same_both_ways(pair: tuple[Side, Side]) -> None:
    def scenario(side: Side) -> dict[str, Any]:
        ann = side.person("ann")
        side.person("bob")
        side.owner.ok("POST", "/users/me/subscriptions", subscriptions='[{"name": "lean"}]',
                      principals=f"[{side.ids['ann']}, {side.ids['bob']}]")  # fmt: skip
        channel = side.owner.ok("GET", "/get_stream_id", stream="lean")["stream_id"]
        queues = {name: side.register(name) for name in ("ann", "bob")}
        sends = [
            dict(type="stream", to=channel, topic="one", content="hello **all**"),
            dict(type="channel", to='"lean"', subject="two", content="by name"),
            dict(type="direct", to=f"[{side.ids['bob']}]", content="just you"),
            dict(type="private", to="bob@lean.test", content="by email"),
            dict(type="stream", to=channel, topic="one", content="echo",
                 queue_id=queues["ann"], local_id="1.01"),
            dict(type="stream", to=channel, topic="one", content="read", read_by_sender="false"),
            dict(type="stream", to=channel, topic="one", content="x", unknown_name="y"),
            dict(type="stream", to=channel + 1000, topic="one", content="no such channel"),
            dict(type="stream", to=channel, topic="one"),
            dict(type="stream", to=channel, topic="one", content="half", queue_id=queues["ann"]),
        ]  # fmt: skip
        answers = [side.answer(ann.post("/messages", **send)) for send in sends]
        answers.append(side.answer(ann.get("/users/me")))
        answers.append(side.answer(ann.get("/users/me", unknown="1")))
        first, second = answers[0][2]["id"], answers[1][2]["id"]
        others = [
            ann.post("/messages/flags", messages=f"[{first}, {second}]", op="add", flag="starred"),
            ann.post("/messages/flags", messages=f"[{first}]", op="remove", flag="starred"),
            ann.post("/messages/flags", messages=f"[{first}]", op="add", flag="bogus"),
            ann.post(f"/messages/{first}/reactions", emoji_name="smile"),
            ann.post(f"/messages/{first}/reactions", emoji_name="smile"),  # exists already
            ann.delete(f"/messages/{first}/reactions", emoji_name="smile"),
            ann.delete(f"/messages/{first}/reactions", emoji_name="smile"),  # gone already
            ann.post("/typing", op="start", to=f"[{side.ids['bob']}]"),
            ann.post("/typing", op="sideways", to=f"[{side.ids['bob']}]"),
            ann.post("/users/me/presence", status="active", slim_presence="true"),
            ann.get("/messages", anchor="newest", num_before=3, num_after=0,
                    narrow='[{"operator": "is", "operand": "starred"}]'),
        ]  # fmt: skip
        answers += [side.answer(response) for response in others]
        events = {name: side.events(name, queue) for name, queue in queues.items()}
        fetched = ann.ok("GET", "/messages", anchor="newest", num_before=20, num_after=0)
        return {"answers": answers, "events": events,
                "messages": side.plain(fetched["messages"])}  # fmt: skip

    lean, route = both(pair, scenario)
    assert lean["answers"] == route["answers"]
    assert lean["events"] == route["events"]
    assert lean["messages"] == route["messages"]
    statuses = [a[0] for a in lean["answers"]]
    others = [200, 200, 400, 200, 400, 200, 400, 200, 400, 200, 200]  # flags, reactions, typing...
    assert statuses == [200] * 7 + [400] * 3 + [200] * 2 + others
    assert {e["type"] for e in lean["events"]["bob"]} >= {"message", "typing"}
    bob_events = lean["events"]["bob"]
    assert len([e for e in bob_events if e["type"] == "message"]) == 7
    echo = [e for e in lean["events"]["ann"] if e.get("local_message_id") == "1.01"]
    assert len(echo) == 1
    # The plain requests went the lean way (errors fell through), none on the other server.
    assert len(pair[0].lean_lines("POST /api/v1/messages")) == 7
    assert len(pair[0].lean_lines("POST /api/v1/messages/flags")) == 2
    assert len(pair[0].lean_lines("(POST|DELETE) /api/v1/messages/[0-9]+/reactions")) == 2
    assert len(pair[0].lean_lines("POST /api/v1/typing")) == 1
    assert len(pair[0].lean_lines("POST /api/v1/users/me/presence")) == 1
    assert len(pair[0].lean_lines("GET /api/v1/messages")) == 2
    assert len(pair[0].lean_lines("GET /api/v1/users/me")) == 2
    assert pair[1].lean_lines(".*") == []


def test_register_answers_the_same_both_ways(pair: tuple[Side, Side]) -> None:
    def scenario(side: Side) -> list[Any]:
        eve = side.person("eve")
        return [
            side.answer(eve.post("/register")),  # every event type
            side.answer(eve.post("/register", event_types='["message"]', apply_markdown="true",
                                 client_capabilities='{"notification_settings_null": true}')),
            side.answer(eve.post("/register", event_types="not json")),
            side.answer(eve.post("/register", narrow='[["stream", "lean"]]',
                                 fetch_event_types='["realm_user"]')),
        ]  # fmt: skip

    lean, route = both(pair, scenario)
    assert lean == route
    assert [a[0] for a in lean] == [200, 200, 400, 200]
    assert len(pair[0].lean_lines("POST /api/v1/register")) >= 3


def test_the_web_clients_session_sends_the_same_both_ways(pair: tuple[Side, Side]) -> None:
    def scenario(side: Side) -> list[Any]:
        side.person("cat")
        channel = side.owner.ok("GET", "/get_stream_id", stream="lean")["stream_id"]
        side.owner.ok("POST", "/users/me/subscriptions", subscriptions='[{"name": "lean"}]',
                      principals=f"[{side.ids['cat']}]")  # fmt: skip
        send = {"type": "stream", "to": str(channel), "topic": "web", "content": "from a browser"}
        with browser(side.server.url) as client:
            assert log_in(client, "cat@lean.test", TEST_PASSWORD).status_code == 303
            token = {"X-CSRFToken": client.cookies["csrftoken"]}
            answers = [
                side.answer(client.post("/json/messages", data=send, headers=token)),
                side.answer(client.post("/json/messages", data=send)),  # no CSRF token
                side.answer(client.get("/json/users/me")),
            ]
        newest = side.people["cat"].ok("GET", "/messages", anchor="newest", num_before=1,
                                       num_after=0)["messages"]  # fmt: skip
        return [*answers, side.plain(newest)]

    lean, route = both(pair, scenario)
    assert lean == route
    assert [a[0] for a in lean[:3]] == [200, 403, 200]
    assert lean[3][0]["client"] == "website"


def test_deactivated_people_and_webhook_bots_are_refused_the_same_both_ways(
    pair: tuple[Side, Side],
) -> None:
    def scenario(side: Side) -> list[Any]:
        dan = side.person("dan")
        send = {"type": "direct", "to": f"[{side.ids['dan']}]", "content": "hi"}
        answers = [side.answer(dan.post("/messages", **send))]  # cached credentials now
        cli(side.server.db, "admin", "deactivate-user", "dan@lean.test")
        answers.append(side.answer(dan.post("/messages", **send)))
        answers.append(side.answer(dan.get("/users/me")))
        bot = side.owner.ok("POST", "/bots", full_name="Hook", short_name="leanhook",
                            bot_type="2")  # fmt: skip
        bots = side.owner.ok("GET", "/users/me/bots")["bots"]
        email = next(b["username"] for b in bots if b["user_id"] == bot["user_id"])
        hook = Api(side.server.url, email, bot["api_key"])
        answers.append(side.answer(hook.post("/messages", **send)))
        hook.close()
        return answers

    lean, route = both(pair, scenario)
    assert lean == route
    assert [a[0] for a in lean] == [200, 401, 401, 400]
    assert lean[3][2]["msg"] == "This API is not available to incoming webhook bots."


def test_rate_limits_count_each_request_once_both_ways(
    start_server: Callable[..., ServerProcess],
) -> None:
    env = {"TEAMCHAT_API_RATE_LIMIT": "6/600"}
    lean = Side(start_server(env))
    route = Side(start_server({**env, "TEAMCHAT_LEAN_ROUTES": "0"}))

    def scenario(side: Side) -> list[Any]:
        eve = side.person("eve")
        to = f"[{side.ids['eve']}]"
        good = {"type": "direct", "to": to, "content": "hi"}
        bad = {"type": "direct", "to": to}  # no content: the handler raises
        sends = [good, bad, good, bad, good, good, good, bad]
        return [side.answer(eve.post("/messages", **send)) for send in sends]

    answers = scenario(lean)
    assert answers == scenario(route)
    # Six requests a window, each counted once whichever way it was answered.
    assert [a[0] for a in answers] == [200, 400, 200, 400, 200, 200, 429, 429]

    def in_a_browser(side: Side) -> list[Any]:
        side.person("fay")
        send = {"type": "direct", "to": f"[{side.ids['fay']}]", "content": "hi"}
        with browser(side.server.url) as client:
            assert log_in(client, "fay@lean.test", TEST_PASSWORD).status_code == 303
            token = {"X-CSRFToken": client.cookies["csrftoken"]}
            return [
                side.answer(client.post("/json/messages", data=send, headers=headers))
                for headers in [{}, token, {}, token, token, token, token, token, token]
            ]

    answers = in_a_browser(lean)
    assert answers == in_a_browser(route)
    # zulip-compat: a request refused for its CSRF token is not counted (Django refuses it
    # before the view's rate limit).
    assert [a[0] for a in answers] == [403, 200, 403, 200, 200, 200, 200, 200, 429]
