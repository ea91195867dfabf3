"""zulip-js (npm) under Node against a live server: the calls it makes, as it makes them
(multipart POST bodies, PATCH/DELETE parameters in the query string)."""

from __future__ import annotations

import json
import os

from tests.conftest import TEST_PASSWORD
from tests.support.clients import run_node, zulip_js
from tests.support.server import ServerProcess

SCRIPT = r"""
const zulipInit = require("zulip-js");
(async () => {
  const out = {};
  const z = await zulipInit({ username: process.env.Z_USER, password: process.env.Z_PASS,
                              realm: process.env.Z_REALM });
  out.me = await z.users.me.getProfile();
  const queue = await z.queues.register({ event_types: ["realm_user"] });
  out.register = { result: queue.result, has_queue: typeof queue.queue_id === "string" };
  out.events = await z.events.retrieve({ queue_id: queue.queue_id, last_event_id: -1,
                                          dont_block: true });
  out.deregister = await z.queues.deregister({ queue_id: queue.queue_id });
  out.users = await z.users.retrieve({});
  out.settings = await z.server.settings();
  console.log(JSON.stringify(out));
})().catch((err) => { console.error(err); process.exit(1); });
"""


def test_zulip_js_logs_in_with_a_password_and_talks_to_the_server(
    server: ServerProcess, make_user
) -> None:  # type: ignore[no-untyped-def]
    user = make_user(full_name="JS User")
    env = {**os.environ, "Z_USER": user.email, "Z_PASS": TEST_PASSWORD, "Z_REALM": server.url}
    out = json.loads(run_node(zulip_js(), SCRIPT, env))
    assert out["me"]["result"] == "success" and out["me"]["user_id"] == user.user_id
    assert out["register"] == {"result": "success", "has_queue": True}
    assert out["events"]["result"] == "success"
    assert out["deregister"]["result"] == "success"
    assert user.email in [m["email"] for m in out["users"]["members"]]
    assert out["settings"]["zulip_feature_level"] >= 277
