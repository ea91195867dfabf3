"""The real zulip_botserver (PyPI) running the `helloworld` bot as an outgoing webhook: a
mention reaches it, and its answer (a reply and a reaction, through the API) comes back."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import uuid
from pathlib import Path

from tests.support.api import Api
from tests.support.channels import stream_id, subscribe, unique_name
from tests.support.clients import zulip_botserver
from tests.support.server import ServerProcess, free_port


def _wait_for_port(port: int, process: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[0]
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError("zulip-botserver did not start")


def test_helloworld_answers_a_mention(server: ServerProcess, owner: Api, tmp_path: Path) -> None:
    executable = zulip_botserver()
    port = free_port()
    short = f"hello{uuid.uuid4().hex[:6]}"
    created = owner.ok(
        "POST", "/users/me/bots", full_name=f"Hello {short}", short_name=short, bot_type=3,
        payload_url=json.dumps(f"http://127.0.0.1:{port}/"),
    )  # fmt: skip
    state = owner.ok("POST", "/register", fetch_event_types=json.dumps(["realm_bot"]))
    [bot] = [b for b in state["realm_bots"] if b["user_id"] == created["user_id"]]
    rc = tmp_path / "botserverrc"
    rc.write_text(
        "[helloworld]\n"
        f"email={bot['email']}\nkey={created['api_key']}\nsite={server.url}\n"
        f"token={bot['services'][0]['token']}\n"
    )
    process = subprocess.Popen(
        [str(executable), "--config-file", str(rc), "--hostname", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        _wait_for_port(port, process)
        name = unique_name("Helloworld")
        subscribe(owner, name)
        sid = stream_id(owner, name)
        asked = owner.ok("POST", "/messages", type="stream", to=sid, topic="greetings",
                         content=f"@**Hello {short}** hi there")["id"]  # fmt: skip
        narrow = json.dumps([{"operator": "channel", "operand": sid}])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            messages = owner.ok("GET", "/messages", anchor="newest", num_before=5, num_after=0,
                                narrow=narrow, apply_markdown="false")["messages"]  # fmt: skip
            replies = [m for m in messages if m["sender_id"] == bot["user_id"]]
            reacted = [m for m in messages if m["id"] == asked and m["reactions"]]
            if replies and reacted:
                break
            time.sleep(0.2)
        else:
            raise AssertionError(f"no answer from the botserver: {messages}")
        assert replies[0]["content"] == "beep boop" and replies[0]["subject"] == "greetings"
        assert reacted[0]["reactions"][0]["emoji_name"] == "wave"
        assert reacted[0]["reactions"][0]["user_id"] == bot["user_id"]
    finally:
        process.terminate()
        process.wait(timeout=10)
