// node --test: people in the client's state follow realm_user events, a lost one unknown.
import assert from "node:assert/strict";
import { test } from "node:test";

import { State } from "../../teamchat/web/static/js/state.js";

function fresh() {
  return new State({
    user_id: 1,
    realm_name: "Org",
    realm_bot_domain: "chat.example",
    queue_id: "q",
    last_event_id: -1,
    realm_users: [
      { user_id: 1, full_name: "Guest" },
      { user_id: 2, full_name: "Friend" },
    ],
    subscriptions: [],
  });
}

test("a guest losing access sees an Unknown user, gaining it sees the person", () => {
  const state = fresh();
  state.apply({ type: "realm_user", op: "remove", person: { user_id: 2, full_name: "x" } });
  assert.equal(state.userName(2), "Unknown user");
  assert.equal(state.users.get(2).email, "user2@chat.example");
  state.apply({ type: "realm_user", op: "add", person: { user_id: 2, full_name: "Friend" } });
  assert.equal(state.userName(2), "Friend");
});
