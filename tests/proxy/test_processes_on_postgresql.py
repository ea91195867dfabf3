"""Two `teamchat serve` processes on ONE PostgreSQL database behind the nginx site
`teamchat proxy-config nginx` prints: what one process commits reaches the queues the other
holds, live and in commit order (messages, typing, reactions, presence, flags); what the
admin CLI changes reaches both; a role change, key regeneration or deactivation through one
process applies on the other (from the moment its event could reach that process's
clients); and a process killed with kill -9 during
a stream of sends loses no acknowledged message, while its clients (the official one among
them) register again through nginx on the living process and carry on.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import zulip

from tests.support.api import Api, assert_error, assert_success
from tests.support.nginx import NginxProcess
from tests.support.postgres import PostgresServer
from tests.support.server import ServerProcess, cli, free_port

pytestmark = pytest.mark.timeout(180)
PASSWORD = "a long test password 42"


class Cluster:
    """nginx in front of processes 1 and 2, both serving one PostgreSQL database."""

    def __init__(self, url: str, directory: Path) -> None:
        self.db = url
        self.proxy = NginxProcess()
        ports = [free_port(), free_port()]
        self.addresses = [f"127.0.0.1:{port}" for port in ports]
        peers = ",".join(f"{n}=http://{a}" for n, a in enumerate(self.addresses, 1))
        site = cli(
            url, "proxy-config", "nginx", "--processes", ",".join(self.addresses),
            "--listen", f"127.0.0.1:{self.proxy.port}",
        ).stdout  # fmt: skip
        self.processes: list[ServerProcess] = []
        for number, port in enumerate(ports, 1):  # one after the other: the first one
            own = directory / f"process{number}"  # creates the organization
            own.mkdir()
            command = ["--db", url, "serve", "--process", str(number), "--peers", peers]
            env = {"TEAMCHAT_EXTERNAL_URL": self.url}
            server = ServerProcess(own, env, command, database_url=url)
            self.processes.append(server.start(port=port))
        self.proxy.start(site)
        first = self.processes[0]
        self.owner = (first.owner_email, first.owner_key)

    @property
    def url(self) -> str:
        return self.proxy.url

    def direct(self, number: int, person: tuple[str, str]) -> Api:
        """A client of process `number` itself (not through nginx)."""
        return Api(self.processes[number - 1].url, *person)

    def stop(self) -> None:
        self.proxy.stop()
        for server in self.processes:
            if server.process is not None and server.process.poll() is None:
                server.stop()


@pytest.fixture(scope="module")
def cluster(
    postgres: PostgresServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    running = Cluster(postgres.new_database("processes"), tmp_path_factory.mktemp("processes"))
    yield running
    running.stop()


def new_person(cluster: Cluster, name: str) -> tuple[tuple[str, str], int]:
    """A member made through nginx: ((email, API key), user id)."""
    email = f"{name.lower()}@example.com"
    with Api(cluster.url, *cluster.owner) as owner:
        assert_success(owner.post("/users", email=email, password=PASSWORD, full_name=name))
    with Api(cluster.url) as anonymous:
        key = assert_success(anonymous.post("/fetch_api_key", username=email, password=PASSWORD))
    return (email, key["api_key"]), int(key["user_id"])


class Queue:
    """An event queue registered through nginx on process `number` (nginx balances
    registrations round robin; a queue landing on the other process is deleted)."""

    def __init__(self, client: Api, number: int, event_types: list[str]) -> None:
        self.client = client
        elsewhere = []
        for _ in range(20):
            state = assert_success(client.post("/register", event_types=event_types))
            if state["queue_id"].startswith(f"{number}-"):
                break
            elsewhere.append(state["queue_id"])
        else:
            raise AssertionError(f"no queue landed on process {number}")
        for queue_id in elsewhere:
            assert_success(client.delete("/events", queue_id=queue_id))
        self.queue_id: str = state["queue_id"]
        self.state = state
        self.last = -1
        self.seen: list[dict[str, Any]] = []

    def poll(self) -> list[dict[str, Any]]:
        answer = self.client.get(
            "/events", queue_id=self.queue_id, last_event_id=self.last, dont_block="true"
        )
        events = assert_success(answer)["events"]
        if events:
            self.last = events[-1]["id"]
        self.seen += [e for e in events if e["type"] != "heartbeat"]
        return events

    def wait_for(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        deadline = time.monotonic() + 10
        while True:
            for event in self.seen:
                if wanted(event):
                    return event
            assert time.monotonic() < deadline, f"no such event on {self.queue_id}: {self.seen}"
            self.poll()
            time.sleep(0.02)


def test_clients_on_different_processes_see_each_other_live_and_in_order(
    cluster: Cluster,
) -> None:
    member, member_id = new_person(cluster, "Member")
    owner = Api(cluster.url, *cluster.owner)
    owner_id = assert_success(owner.get("/users/me"))["user_id"]
    client_a, client_b = Api(cluster.url, *cluster.owner), Api(cluster.url, *member)
    types = ["message", "typing", "reaction", "presence", "update_message_flags"]
    on_1 = Queue(client_a, 1, types)  # the owner's queue, held by process 1
    on_2 = Queue(client_b, 2, types)  # the member's, held by process 2
    via_1, via_2 = cluster.direct(1, cluster.owner), cluster.direct(2, member)

    # A message sent through process 1 reaches the queue on process 2, and back.
    sent = assert_success(via_1.post("/messages", type="direct", to=f"[{member_id}]",
                                     content="hello from 1"))  # fmt: skip
    got = on_2.wait_for(lambda e: e["type"] == "message")
    assert got["message"]["id"] == sent["id"] and got["message"]["content"] == "hello from 1"
    reply = assert_success(via_2.post("/messages", type="direct", to=f"[{owner_id}]",
                                      content="hello from 2"))  # fmt: skip
    on_1.wait_for(lambda e: e["type"] == "message" and e["message"]["id"] == reply["id"])

    # Typing (no transaction), a reaction, presence and a flag change, each made through the
    # process that does not hold the watching queue.
    assert_success(via_2.post("/typing", op="start", to=f"[{owner_id}]"))
    typing = on_1.wait_for(lambda e: e["type"] == "typing")
    assert typing["op"] == "start" and typing["sender"]["user_id"] == member_id
    assert_success(via_1.post(f"/messages/{reply['id']}/reactions", emoji_name="smile"))
    reaction = on_2.wait_for(lambda e: e["type"] == "reaction")
    assert (reaction["op"], reaction["user_id"], reaction["message_id"]) == (
        "add", owner_id, reply["id"],
    )  # fmt: skip
    assert_success(via_2.post("/users/me/presence", status="active"))
    presence = on_1.wait_for(lambda e: e["type"] == "presence")
    assert presence["user_id"] == member_id
    with cluster.direct(1, member) as member_via_1:  # the member's own flags, through 1
        assert_success(member_via_1.post("/messages/flags", op="add", flag="starred",
                                         messages=[sent["id"]]))  # fmt: skip
    flags = on_2.wait_for(lambda e: e["type"] == "update_message_flags")
    assert (flags["op"], flags["flag"], flags["messages"]) == ("add", "starred", [sent["id"]])

    # Sends alternating between the processes: both queues see every message, in the order
    # of the ids (the commit order), the same on both.
    ids = []
    for n in range(16):
        via = via_1 if n % 2 else via_2
        to = member_id if via is via_1 else owner_id
        answer = via.post("/messages", type="direct", to=f"[{to}]", content=f"n{n}")
        ids.append(assert_success(answer)["id"])
    for queue in (on_1, on_2):
        queue.wait_for(lambda e, last=ids[-1]: e.get("message", {}).get("id") == last)
        seen = [e["message"]["id"] for e in queue.seen if e["type"] == "message"]
        assert seen[-16:] == ids, (queue.queue_id, seen)
    for api in (owner, client_a, client_b, via_1, via_2):
        api.close()


def test_an_admin_command_reaches_both_processes(cluster: Cluster) -> None:
    leaving, _ = new_person(cluster, "Leaving")
    owner = Api(cluster.url, *cluster.owner)
    watchers = [Queue(owner, n, ["realm_user"]) for n in (1, 2)]
    theirs = [Queue(Api(cluster.url, *leaving), n, ["message"]) for n in (1, 2)]
    cli(cluster.db, "admin", "deactivate-user", leaving[0])
    for watcher in watchers:
        watcher.wait_for(lambda e: e["op"] == "update" and e["person"].get("is_active") is False)
    for queue in theirs:
        answer = queue.client.get("/events", queue_id=queue.queue_id, dont_block="true")
        assert_error(answer, "Account is deactivated", "USER_DEACTIVATED", 401)
    # Back again: the queues they had on both processes are gone.
    cli(cluster.db, "admin", "reactivate-user", leaving[0])
    for queue in theirs:
        answer = queue.client.get("/events", queue_id=queue.queue_id, dont_block="true")
        assert_error(answer, f"Bad event queue ID: {queue.queue_id}", "BAD_EVENT_QUEUE_ID", 400)
        queue.client.close()
    owner.close()


def test_caches_follow_changes_made_through_the_other_process(cluster: Cluster) -> None:
    """Process 2 hears of a change's tables (cache invalidation) on the same connection, and
    before, the change's events: so once the change's event reached a queue on process 2,
    the next request there is answered from the changed data, not from a cache. (Without
    that wait, a request racing the notification could still be answered from the cache:
    the notification's trip, well under a millisecond on one machine, is the window.)"""
    person, person_id = new_person(cluster, "Cached")
    watching = Queue(Api(cluster.url, *cluster.owner), 2, ["realm_user", "realm_bot"])
    with cluster.direct(1, cluster.owner) as owner_via_1, cluster.direct(2, person) as via_2:
        assert assert_success(via_2.get("/users/me"))["role"] == 400  # cached on process 2
        assert_success(owner_via_1.patch(f"/users/{person_id}", role=200))
        watching.wait_for(lambda e: e["type"] == "realm_user" and e["person"].get("role") == 200)
        assert assert_success(via_2.get("/users/me"))["role"] == 200
        # A bot's new key through process 1: the old one fails on process 2.
        bot = assert_success(owner_via_1.post("/users/me/bots", full_name="Cached Bot",
                                              short_name="cached", bot_type=1))  # fmt: skip
        bot_email = assert_success(owner_via_1.get(f"/users/{bot['user_id']}"))["user"]["email"]
        with Api(cluster.processes[1].url, bot_email, bot["api_key"]) as bot_via_2:
            assert_success(bot_via_2.get("/users/me"))  # cached on process 2
            answer = owner_via_1.post(f"/bots/{bot['user_id']}/api_key/regenerate")
            new_key = assert_success(answer)["api_key"]
            watching.wait_for(lambda e: e["type"] == "realm_bot"
                              and e["bot"].get("api_key") == new_key)  # fmt: skip
            assert_error(bot_via_2.get("/users/me"), "Invalid API key", "UNAUTHORIZED", 401)
        with Api(cluster.processes[1].url, bot_email, new_key) as bot_via_2:
            assert assert_success(bot_via_2.get("/users/me"))["user_id"] == bot["user_id"]
        # Deactivation through process 1: refused on process 2.
        assert_success(via_2.get("/users/me"))
        assert_success(owner_via_1.delete(f"/users/{person_id}"))
        watching.wait_for(lambda e: e["type"] == "realm_user"
                          and e["person"].get("is_active") is False)  # fmt: skip
        answer = via_2.get("/users/me")
        assert_error(answer, "Account is deactivated", "USER_DEACTIVATED", 401)
    watching.client.close()


class RecordingClient(zulip.Client):  # type: ignore[misc]
    """The official client, noting each queue it registers and each message it gets."""

    registered: list[str]

    def register(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        answer: dict[str, Any] = super().register(*args, **kwargs)
        if answer.get("result") == "success":
            self.registered.append(answer["queue_id"])
        return answer


class Done(Exception):
    pass


class Listening:
    """The official client's call_on_each_event in a thread, until a message says "done"."""

    def __init__(self, cluster: Cluster, person: tuple[str, str]) -> None:
        self.client = RecordingClient(email=person[0], api_key=person[1], site=cluster.url)
        self.client.registered = []
        self.received: list[str] = []
        self.failures: list[BaseException] = []
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()

    @property
    def registered(self) -> list[str]:
        return self.client.registered

    def _on_event(self, event: dict[str, Any]) -> None:
        self.received.append(event["message"]["content"])
        if event["message"]["content"] == "done":
            raise Done

    def _listen(self) -> None:
        try:
            self.client.call_on_each_event(self._on_event, event_types=["message"])
        except Done:
            pass
        except BaseException as error:  # reported by the test
            self.failures.append(error)


def test_a_killed_process_loses_no_acknowledged_message(cluster: Cluster) -> None:
    """Runs last: it kills a process."""
    listener_person, listener_id = new_person(cluster, "Listener")
    # The official client's queue: on the process that will be killed.
    listening = Listening(cluster, listener_person)
    wait_for(lambda: len(listening.registered) >= 1)
    doomed_queue = listening.registered[-1]
    doomed = int(doomed_queue.partition("-")[0])

    # A stream of sends through nginx; process 2 is killed in the middle of it.
    acknowledged: list[int] = []
    refused: list[int] = []
    stop = threading.Event()

    def send() -> None:
        with Api(cluster.url, *cluster.owner) as sender:
            n = 0
            while not stop.is_set():
                try:
                    answer = sender.post("/messages", type="direct", to=f"[{listener_id}]",
                                         content=f"stream {n}")  # fmt: skip
                except httpx.HTTPError:
                    refused.append(n)
                else:
                    if answer.status_code == 200:
                        acknowledged.append(answer.json()["id"])
                    else:
                        refused.append(answer.status_code)
                n += 1

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    wait_for(lambda: len(acknowledged) >= 20)
    cluster.processes[doomed - 1].stop(signal.SIGKILL)
    count = len(acknowledged)
    wait_for(lambda: len(acknowledged) >= count + 20)  # nginx sends the rest to process 1
    stop.set()
    sender.join(30)
    # Every acknowledged message is there, read through nginx (process 1 now).
    with Api(cluster.url, *cluster.owner) as reader:
        for message_id in acknowledged:
            assert_success(reader.get(f"/messages/{message_id}"))
    # The official client found its queue gone, registered again on process 1, carries on.
    wait_for(lambda: listening.registered[-1] != doomed_queue)
    living = 3 - doomed
    assert listening.registered[-1].startswith(f"{living}-"), listening.registered
    with Api(cluster.url, *cluster.owner) as owner:
        answer = owner.post("/messages", type="direct", to=f"[{listener_id}]", content="done")
        assert_success(answer)
    listening.thread.join(30)
    assert not listening.failures, listening.failures
    assert listening.received[-1] == "done"


def wait_for(condition: Callable[[], bool], timeout_secs: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_secs
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
