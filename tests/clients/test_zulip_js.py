"""zulip-js (npm) under Node against a live server: the calls it makes, as it makes them
(multipart POST bodies, GET/PATCH/DELETE parameters in the query string, `eventTypes=null`
from its event loop)."""

from __future__ import annotations

import json
import os
from typing import Any

from tests.conftest import TEST_PASSWORD
from tests.support.api import Api
from tests.support.channels import subscribe, unique_name
from tests.support.clients import run_node, zulip_js
from tests.support.server import ServerProcess

SCRIPT = r"""
const zulipInit = require("zulip-js");
(async () => {
  const out = {};
  const env = process.env;
  // The password form: POST /fetch_api_key (multipart, no credentials) first.
  const z = await zulipInit({ username: env.Z_USER, password: env.Z_PASS, realm: env.Z_REALM });
  out.api_key = z.config.apiKey;
  out.me = await z.users.me.getProfile();
  out.settings = await z.server.settings();
  out.users = await z.users.retrieve({});

  const queue = await z.queues.register({ event_types: ["message", "reaction", "subscription"] });
  out.register = { result: queue.result, queue_id: queue.queue_id };
  out.sent = await z.messages.send({ to: env.Z_CHANNEL, type: "stream", topic: "js",
                                     content: "from **zulip-js**" });
  out.dm = await z.messages.send({ to: JSON.stringify([Number(env.Z_PEER_ID)]), type: "private",
                                   content: "js dm" });
  out.fetched = await z.messages.retrieve({
    anchor: "newest", num_before: 10, num_after: 0, apply_markdown: false,
    narrow: [{ operator: "stream", operand: env.Z_CHANNEL }, { operator: "topic", operand: "js" }],
  });
  out.events = await z.events.retrieve({ queue_id: queue.queue_id, last_event_id: -1,
                                         dont_block: true });
  // PATCH and DELETE put every parameter in the query string and send no body.
  out.edited = await z.messages.update({ message_id: out.sent.id, content: "edited by js" });
  out.reacted = await z.reactions.add({ message_id: out.sent.id, emoji_name: "octopus" });
  out.unreacted = await z.reactions.remove({ message_id: out.sent.id, emoji_name: "octopus" });
  out.subscribed = await z.users.me.subscriptions.add({
    subscriptions: JSON.stringify([{ name: env.Z_EXTRA }]) });
  out.unsubscribed = await z.users.me.subscriptions.remove({
    subscriptions: JSON.stringify([env.Z_EXTRA]) });
  out.after = await z.events.retrieve({ queue_id: queue.queue_id, last_event_id: -1,
                                        dont_block: true });
  out.deregister = await z.queues.deregister({ queue_id: queue.queue_id });

  // callOnEachEvent registers with eventTypes=null (every event type), then polls.
  const received = new Promise((resolve) => {
    z.callOnEachEvent((event) => {
      if (event.type === "message" && event.message.content === "looped") resolve(event);
    });
  });
  setTimeout(() => z.messages.send({ to: env.Z_CHANNEL, type: "stream", topic: "js",
                                     content: "looped" }), 1500);
  out.looped = await received;
  // Exit once the output is written: a pipe takes 64 KiB at a time, and exit() drops the rest.
  process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
})().catch((err) => { console.error(err); process.exit(1); });
"""


def _run(server: ServerProcess, user: Api, peer: Api, channel: str, extra: str) -> Any:
    env = {
        **os.environ,
        "Z_USER": user.email or "",
        "Z_PASS": TEST_PASSWORD,
        "Z_REALM": server.url,
        "Z_CHANNEL": channel,
        "Z_EXTRA": extra,
        "Z_PEER_ID": str(peer.user_id),  # type: ignore[attr-defined]
    }
    return json.loads(run_node(zulip_js(), SCRIPT, env))


def test_zulip_js_flows(server: ServerProcess, make_user: Any) -> None:
    user, peer = make_user(full_name="JS User"), make_user(full_name="JS Peer")
    channel, extra = unique_name("js"), unique_name("js-extra")
    subscribe(user, channel, principals=[user.user_id, peer.user_id])
    out = _run(server, user, peer, channel, extra)
    assert out["api_key"] == user.api_key
    assert out["me"]["result"] == "success" and out["me"]["user_id"] == user.user_id
    assert out["settings"]["zulip_feature_level"] >= 277
    assert user.email in [m["email"] for m in out["users"]["members"]]
    assert out["register"]["result"] == "success"
    for key in ("sent", "dm", "edited", "reacted", "unreacted", "subscribed", "unsubscribed"):
        assert out[key]["result"] == "success", (key, out[key])
    assert [m["content"] for m in out["fetched"]["messages"]] == ["from **zulip-js**"]
    # Its own messages reach its queue (the DM too: it is a participant).
    assert [e["message"]["content"] for e in out["events"]["events"]] == [
        "from **zulip-js**",
        "js dm",
    ]
    later = [(e["type"], e.get("op")) for e in out["after"]["events"][2:]]
    assert later == [
        ("reaction", "add"),
        ("reaction", "remove"),
        ("subscription", "add"),
        ("message", None),  # the Notification Bot's first message in the new channel
        ("subscription", "remove"),
    ]
    assert out["deregister"]["result"] == "success"
    assert out["looped"]["message"]["sender_id"] == user.user_id
    # The server saw what zulip-js sent.
    stored = peer.ok("GET", f"/messages/{out['sent']['id']}")
    assert stored["raw_content"] == "edited by js" and stored["message"]["reactions"] == []
    subs = user.ok("GET", "/users/me/subscriptions")["subscriptions"]
    assert extra not in {s["name"] for s in subs}
