"""Two `teamchat serve` processes behind the nginx site `teamchat proxy-config nginx` prints
(and, for the routing and the kill, behind the HAProxy sections `proxy-config haproxy`
prints): every event queue request reaches the process that holds the queue.

The two processes here run on copies of one prepared SQLite database (quick to start, no
PostgreSQL needed): they know the same organization, people and API keys, but what one
process stores the other never sees, and events do not cross processes. Processes sharing
one PostgreSQL database, with events crossing between them, are tested in
test_processes_on_postgresql.py. What is tested here is the routing alone: registering
through nginx lands on both processes, and every GET /events (plain, long-polled, the
official client's), DELETE /events (queue id in the query string or in a form body, which
the process that receives it forwards to the queue's own process) reaches the queue's
process; a process killed with kill -9 sends its clients to a living process, where they
register again and carry on.
"""

from __future__ import annotations

import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import zulip

from tests.support.api import Api, assert_error, assert_success
from tests.support.haproxy import HaproxyProcess
from tests.support.nginx import NginxProcess
from tests.support.server import ServerProcess, cli, free_port
from tests.support.web import browser, log_in

pytestmark = pytest.mark.timeout(180)
PASSWORD = "a long test password 42"


class Cluster:
    """A proxy (nginx, or HAProxy) in front of processes 1 and 2, each on its own copy of the
    prepared database, configured by what `teamchat proxy-config` printed."""

    def __init__(self, prepared: Path, directory: Path, kind: str) -> None:
        self.proxy = NginxProcess() if kind == "nginx" else HaproxyProcess()
        ports = [free_port(), free_port()]
        self.addresses = [f"127.0.0.1:{port}" for port in ports]
        peers = ",".join(f"{n}=http://{a}" for n, a in enumerate(self.addresses, 1))
        where = ("--listen" if kind == "nginx" else "--bind", f"127.0.0.1:{self.proxy.port}")
        site = cli(
            prepared / "teamchat.db",
            "proxy-config", kind, "--processes", ",".join(self.addresses), *where,
        ).stdout  # fmt: skip
        self.processes: list[ServerProcess] = []
        for number, port in enumerate(ports, 1):
            copy = directory / f"process{number}"
            shutil.copytree(prepared, copy)
            command = ["--db", str(copy / "teamchat.db"), "serve"]
            command += ["--process", str(number), "--peers", peers]
            server = ServerProcess(copy, {"TEAMCHAT_EXTERNAL_URL": self.url}, command)
            self.processes.append(server.start(port=port))
        self.proxy.start(site)

    @property
    def url(self) -> str:
        return self.proxy.url

    def process_of(self, queue_id: str) -> ServerProcess:
        number, _, _ = queue_id.partition("-")
        return self.processes[int(number) - 1]

    def stop(self) -> None:
        self.proxy.stop()
        for server in self.processes:
            if server.process is not None and server.process.poll() is None:
                server.stop()


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One database with an organization and a second person, made by a server then stopped."""
    directory = tmp_path_factory.mktemp("prepared")
    server = ServerProcess(directory).start()
    owner = Api(server.url, server.owner_email, server.owner_key)
    email = "routed@example.com"
    assert_success(owner.post("/users", email=email, password=PASSWORD, full_name="Routed"))
    with Api(server.url) as anonymous:
        key = assert_success(anonymous.post("/fetch_api_key", username=email, password=PASSWORD))
    owner.close()
    with browser(server.url) as web:  # a web session, in the database both copies share
        assert log_in(web, email, PASSWORD).status_code == 303
        cookies = dict(web.cookies)
    people = {
        "member_cookies": cookies,
        "owner": (server.owner_email, server.owner_key),
        "member": (email, key["api_key"]),
        "member_id": key["user_id"],
    }
    server.stop()
    (directory / "server.log").unlink()
    yield {"directory": directory, **people}


@pytest.fixture
def cluster(
    prepared: dict[str, Any], tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Cluster]:
    running = Cluster(prepared["directory"], tmp_path, getattr(request, "param", "nginx"))
    yield running
    running.stop()


def api(cluster: Cluster, person: tuple[str, str], url: str | None = None) -> Api:
    return Api(url or cluster.url, *person)


def register_until_both(member: Api) -> list[str]:
    """Queue ids registered through nginx until both processes hold some (round robin)."""
    queue_ids: list[str] = []
    while len({queue_id.partition("-")[0] for queue_id in queue_ids}) < 2 or len(queue_ids) < 6:
        assert len(queue_ids) < 20, queue_ids
        state = assert_success(member.post("/register", event_types='["message"]'))
        queue_ids.append(state["queue_id"])
    return queue_ids


BOTH_PROXIES = pytest.mark.parametrize("cluster", ["nginx", "haproxy"], indirect=True)


@BOTH_PROXIES
def test_proxy_routes_every_queue_request_to_its_process(
    cluster: Cluster, prepared: dict[str, Any]
) -> None:
    member = api(cluster, prepared["member"])
    queue_ids = register_until_both(member)
    assert all(q.partition("-")[0] in {"1", "2"} for q in queue_ids), queue_ids
    for queue_id in queue_ids:
        events = assert_success(member.get("/events", queue_id=queue_id, dont_block="true"))
        assert events["queue_id"] == queue_id and events["events"] == []
    # DELETE with the queue id in a form body (the Python client): nginx balances it, and
    # a process that does not hold the queue forwards it to the one that does.
    for queue_id in queue_ids[:3]:
        assert_success(member.delete("/events", queue_id=queue_id))
    # Straight at the process that does not hold it: forwarded all the same.
    queue_id = queue_ids[3]
    other = cluster.processes[2 - int(queue_id.partition("-")[0])]
    with api(cluster, prepared["member"], url=other.url) as direct:
        assert_success(direct.delete("/events", queue_id=queue_id))
    answer = member.get("/events", queue_id=queue_id, dont_block="true")
    assert_error(answer, f"Bad event queue ID: {queue_id}", "BAD_EVENT_QUEUE_ID", 400)
    queue_ids.remove(queue_id)
    # DELETE with the queue id in the query string (zulip-js): routed by nginx.
    for queue_id in queue_ids[3:]:
        assert_success(member.http.delete("/events", params={"queue_id": queue_id}))
    for queue_id in queue_ids:  # all gone, each from its own process
        answer = member.get("/events", queue_id=queue_id, dont_block="true")
        assert_error(answer, f"Bad event queue ID: {queue_id}", "BAD_EVENT_QUEUE_ID", 400)
    if not isinstance(cluster.proxy, NginxProcess):
        return
    routed = [line.split() for line in cluster.proxy.access_log() if "/events " in line]
    for method, _path, queue_arg, _arrow, upstream, _status in routed:
        if method == "GET":  # every poll went straight to the queue's own process
            owner = cluster.addresses[int(queue_arg.partition("-")[0]) - 1]
            assert upstream == owner, (queue_arg, upstream)
    member.close()


def test_long_polls_through_the_proxy_wait_on_the_queues_process(
    cluster: Cluster, prepared: dict[str, Any]
) -> None:
    member = api(cluster, prepared["member"])
    queue_ids = register_until_both(member)
    first = {q.partition("-")[0]: q for q in queue_ids}
    for queue_id in first.values():
        answers: list[dict[str, Any]] = []
        poll = threading.Thread(target=long_poll, args=(member, queue_id, answers))
        poll.start()
        time.sleep(0.5)  # the poll waits on its process; a message sent there wakes it
        process = cluster.process_of(queue_id)
        owner = api(cluster, prepared["owner"], url=process.url)
        to = f"[{prepared['member_id']}]"
        assert_success(owner.post("/messages", type="direct", to=to, content=f"to {queue_id}"))
        owner.close()
        poll.join(30)
        [answer] = answers
        assert answer["result"] == "success", answer
        contents = [e["message"]["content"] for e in answer["events"] if e["type"] == "message"]
        assert contents == [f"to {queue_id}"]
    # An idle long poll through nginx ends with the process's heartbeat (nginx buffers
    # nothing and waits longer than the heartbeat).
    idle = assert_success(member.get("/events", queue_id=queue_ids[0], last_event_id=0))
    assert [e["type"] for e in idle["events"]] == ["heartbeat"]
    member.close()


def test_the_web_clients_json_route_is_forwarded_too(
    cluster: Cluster, prepared: dict[str, Any]
) -> None:
    member = api(cluster, prepared["member"])
    queue_ids = register_until_both(member)
    cookies = prepared["member_cookies"]
    headers = {"X-CSRFToken": cookies["csrftoken"]}
    for queue_id in queue_ids[:2]:
        other = cluster.processes[2 - int(queue_id.partition("-")[0])]
        with httpx.Client(base_url=other.url, cookies=cookies, timeout=30) as web:
            answer = web.request("DELETE", "/json/events", data={"queue_id": queue_id},
                                 headers=headers)  # fmt: skip
            assert_success(answer)
        gone = member.get("/events", queue_id=queue_id, dont_block="true")
        assert_error(gone, f"Bad event queue ID: {queue_id}", "BAD_EVENT_QUEUE_ID", 400)
    member.close()


def long_poll(member: Api, queue_id: str, answers: list[dict[str, Any]]) -> None:
    answers.append(member.get("/events", queue_id=queue_id, last_event_id=-1).json())


def test_official_client_registers_polls_and_deregisters_through_the_proxy(
    cluster: Cluster, prepared: dict[str, Any]
) -> None:
    email, key = prepared["member"]
    client = zulip.Client(email=email, api_key=key, site=cluster.url)
    queue_ids = []
    for _ in range(6):
        registered = client.register(event_types=["message"])
        assert registered["result"] == "success", registered
        queue_ids.append(registered["queue_id"])
    assert {queue_id.partition("-")[0] for queue_id in queue_ids} == {"1", "2"}
    # The owners alternate as nginx's round robin does: in owner order, some deregistrations
    # reach the other process.
    for queue_id in sorted(queue_ids):
        polled = client.get_events(queue_id=queue_id, last_event_id=-1, dont_block=True)
        assert polled["result"] == "success" and polled["events"] == [], polled
        gone = client.deregister(queue_id)  # DELETE /events, queue_id in the form body
        assert gone["result"] == "success", gone
        again = client.get_events(queue_id=queue_id, last_event_id=-1, dont_block=True)
        assert again["code"] == "BAD_EVENT_QUEUE_ID", again
    answered = sum(p.log().count("DELETE /api/v1/events 200") for p in cluster.processes)
    assert answered > len(queue_ids), "no deregistration was forwarded to the queue's process"


class StopListening(Exception):
    pass


class RecordingClient(zulip.Client):  # type: ignore[misc]
    """The official client, noting each queue it registers."""

    registered: list[str]

    def register(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        answer: dict[str, Any] = super().register(*args, **kwargs)
        if answer.get("result") == "success":
            self.registered.append(answer["queue_id"])
        return answer


@BOTH_PROXIES
def test_clients_of_a_killed_process_register_again_on_a_living_one(
    cluster: Cluster, prepared: dict[str, Any]
) -> None:
    email, key = prepared["member"]
    client = RecordingClient(email=email, api_key=key, site=cluster.url)
    client.registered = []
    received: list[str] = []
    failures: list[BaseException] = []

    def on_event(event: dict[str, Any]) -> None:
        received.append(event["message"]["content"])
        raise StopListening

    def listen() -> None:
        try:
            client.call_on_each_event(on_event, event_types=["message"])
        except StopListening:
            pass
        except BaseException as error:  # reported by the test
            failures.append(error)

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    wait_for(lambda: len(client.registered) == 1)
    first = client.registered[0]
    victim = cluster.process_of(first)
    victim.stop(signal.SIGKILL)
    # The waiting poll fails at nginx, which asks a living process: BAD_EVENT_QUEUE_ID, and
    # the client registers again through nginx, on the living process.
    wait_for(lambda: len(client.registered) == 2)
    second = client.registered[1]
    assert cluster.process_of(second) is not victim, client.registered
    # A deregistration of the dead process's queue, forwarded there by the living one.
    living = cluster.process_of(second)
    with api(cluster, prepared["member"], url=living.url) as direct:
        answer = direct.delete("/events", queue_id=first)
        assert_error(answer, f"Bad event queue ID: {first}", "BAD_EVENT_QUEUE_ID", 400)
    time.sleep(0.5)  # its poll is waiting
    owner = api(cluster, prepared["owner"])
    to = f"[{prepared['member_id']}]"
    assert_success(owner.post("/messages", type="direct", to=to, content="still here"))
    owner.close()
    listener.join(30)
    assert not failures, failures
    assert received == ["still here"]


def wait_for(condition: Any, timeout_secs: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_secs
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_an_unknown_process_and_a_plain_queue_id_are_bad_queue_ids(
    cluster: Cluster, prepared: dict[str, Any]
) -> None:
    member = api(cluster, prepared["member"])
    for queue_id in ("7-18c0:abc", "18c0:abc", "1-nope"):
        answer = member.get("/events", queue_id=queue_id, dont_block="true")
        assert_error(answer, f"Bad event queue ID: {queue_id}", "BAD_EVENT_QUEUE_ID", 400)
        assert_error(
            member.delete("/events", queue_id=queue_id),
            f"Bad event queue ID: {queue_id}",
            "BAD_EVENT_QUEUE_ID",
            400,
        )
    member.close()
