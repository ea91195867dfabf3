"""The official `zulip` client's long-running flows against a live server: the event loops
(`call_on_each_event`, `call_on_each_message`) surviving a server restart, the `zulip-send`
console script, and a `zulip_bots` bot (`zulip-run-bot helloworld`) answering a DM."""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zulip

from tests.support.api import Api, assert_success
from tests.support.channels import subscribe, unique_name
from tests.support.clients import zulip_run_bot
from tests.support.server import ServerProcess

DEADLINE_SECS = 30.0


class Stopped(BaseException):
    """Ends an event loop: not an Exception, so the client's retry loop lets it through."""


class StoppableClient(zulip.Client):
    """A client whose event loops end at their next poll once `stop` is set."""

    stop = threading.Event()

    def get_events(self, **request: Any) -> dict[str, Any]:
        if self.stop.is_set():
            raise Stopped
        return super().get_events(**request)  # type: ignore[no-any-return]


def loop_thread(loop: Callable[..., None], *args: Any, **kwargs: Any) -> threading.Thread:
    def run() -> None:
        with contextlib.suppress(Stopped):
            loop(*args, **kwargs)

    return threading.Thread(target=run, daemon=True)


def wait_for(check: Callable[[], Any], what: str, deadline: float = DEADLINE_SECS) -> Any:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        result = check()
        if result:
            return result
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def zuliprc(path: Path, email: str, key: str, site: str) -> Path:
    path.write_text(f"[api]\nemail={email}\nkey={key}\nsite={site}\n")
    path.chmod(0o600)
    return path


def test_event_loops_reregister_after_a_restart(start_server: Callable[..., ServerProcess]) -> None:
    server = start_server()
    owner = Api(server.url, server.owner_email, server.owner_key)
    channel = unique_name("loop")
    subscribe(owner, channel)
    messages: queue.Queue[dict[str, Any]] = queue.Queue()
    events: queue.Queue[dict[str, Any]] = queue.Queue()
    client = StoppableClient(email=server.owner_email, api_key=server.owner_key, site=server.url)
    StoppableClient.stop.clear()
    threads = [
        loop_thread(client.call_on_each_message, messages.put),
        loop_thread(client.call_on_each_event, events.put, event_types=["message", "reaction"]),
    ]
    try:
        for thread in threads:
            thread.start()
        _deliveries(owner, channel, messages, events, "before")
        server.restart()
        owner.close()
        owner = Api(server.url, server.owner_email, server.owner_key)
        # The old queues are gone: both loops get BAD_EVENT_QUEUE_ID, register again and go on.
        # Messages sent before they re-register are lost (no catch-up), so keep sending.
        _deliveries(owner, channel, messages, events, "after")
    finally:
        StoppableClient.stop.set()
        for thread in threads:
            thread.join(timeout=15)
        owner.close()
    assert not any(thread.is_alive() for thread in threads)


def _deliveries(
    owner: Api,
    channel: str,
    messages: queue.Queue[dict[str, Any]],
    events: queue.Queue[dict[str, Any]],
    label: str,
) -> None:
    """Send until both loops have delivered one of these messages (and its reaction event)."""
    seen: dict[str, set[int]] = {"message": set(), "event": set()}
    sent: list[int] = []

    def delivered() -> bool:
        response = owner.post(
            "/messages", type="stream", to=channel, topic=label, content=f"{label} {len(sent)}"
        )
        sent.append(assert_success(response)["id"])
        while not messages.empty():
            seen["message"].add(messages.get()["id"])
        while not events.empty():
            event = events.get()
            if event["type"] == "message":
                seen["event"].add(event["message"]["id"])
        return bool(seen["message"] & set(sent)) and bool(seen["event"] & set(sent))

    wait_for(delivered, f"messages {label} the restart")
    owner.ok("POST", f"/messages/{sent[-1]}/reactions", emoji_name="octopus")

    def reaction() -> bool:
        pending = []
        while not events.empty():
            pending.append(events.get())
        return any(e["type"] == "reaction" and e["message_id"] == sent[-1] for e in pending)

    wait_for(reaction, f"the reaction event {label} the restart")


def test_zulip_send(server: ServerProcess, make_user: Any, tmp_path: Path) -> None:
    sender, reader = make_user(full_name="Send Cli"), make_user(full_name="Send Reader")
    channel = unique_name("cli")
    subscribe(sender, channel, principals=[sender.user_id, reader.user_id])
    rc = zuliprc(tmp_path / "zuliprc", sender.email, sender.api_key, server.url)
    script = Path(sys.executable).parent / "zulip-send"
    for args in (
        ["--stream", channel, "--subject", "from cli", "-m", "to the channel"],
        [reader.email, "-m", "to a person"],
    ):
        result = subprocess.run(
            [str(script), "--config-file", str(rc), *args],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr
    body = reader.ok("GET", "/messages", anchor="newest", num_before=2, num_after=0,
                     apply_markdown=False, narrow=[])  # fmt: skip
    assert [(m["type"], m["subject"], m["content"]) for m in body["messages"]] == [
        ("stream", "from cli", "to the channel"),
        ("private", "", "to a person"),
    ]


def test_helloworld_bot_answers_a_direct_message(
    server: ServerProcess, make_user: Any, tmp_path: Path
) -> None:
    person = make_user(full_name="Bot Friend")
    bot = person.ok("POST", "/users/me/bots", full_name="Hello Bot", short_name="hellobot")
    bot["email"] = person.ok("GET", f"/users/{bot['user_id']}")["user"]["email"]
    rc = zuliprc(tmp_path / "zuliprc", bot["email"], bot["api_key"], server.url)
    process = subprocess.Popen(
        [str(zulip_run_bot()), "helloworld", "--config-file", str(rc)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "HOME": str(tmp_path)},
    )  # fmt: skip
    try:
        # The bot registers its queue after start-up; resend until it answers.
        def answered() -> Any:
            if process.poll() is not None:
                raise AssertionError(f"zulip-run-bot exited:\n{process.stdout.read()}")  # type: ignore[union-attr]
            person.ok("POST", "/messages", type="private", to=[bot["user_id"]], content="hi bot")
            time.sleep(1)
            body = person.ok("GET", "/messages", anchor="newest", num_before=10, num_after=0,
                             apply_markdown=False, narrow=[["pm-with", bot["email"]]])  # fmt: skip
            replies = [m for m in body["messages"] if m["sender_id"] == bot["user_id"]]
            waved = [
                m for m in body["messages"]
                if any(r["emoji_name"] == "wave" and r["user_id"] == bot["user_id"]
                       for r in m["reactions"])
            ]  # fmt: skip
            return replies and waved and replies[-1]

        reply = wait_for(answered, "the bot's reply and reaction", deadline=60)
        assert reply["content"] == "beep boop"
    finally:
        process.terminate()
        process.wait(timeout=15)
