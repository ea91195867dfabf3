// node --test: narrows <-> Zulip's URLs, and which live messages belong in a narrow.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  apiNarrow,
  channelHash,
  decodeHashComponent,
  encodeHashComponent,
  hashToNarrow,
  messageMatches,
  narrowToHash,
} from "../../teamchat/web/static/js/narrow.js";

const lookup = { streamName: () => "design team", userName: (id) => ({ 3: "Iago Q" })[id] };

test("hash components are encoded as Zulip's web app does", () => {
  assert.equal(encodeHashComponent("a.b (c) 100%"), "a.2Eb.20.28c.29.20100.25");
  assert.equal(decodeHashComponent("a.2Eb.20.28c.29.20100.25"), "a.b (c) 100%");
  assert.equal(decodeHashComponent(".zz"), null);
});

test("channel and topic URLs round-trip", () => {
  const narrow = { kind: "channel", streamId: 12, topic: "logo v2.0 / final" };
  const hash = narrowToHash(narrow, lookup);
  assert.equal(hash, "#narrow/channel/12-design-team/topic/logo.20v2.2E0.20.2F.20final");
  assert.deepEqual(hashToNarrow(hash), narrow);
  assert.deepEqual(hashToNarrow("#narrow/stream/12-old"), { kind: "channel", streamId: 12 });
  assert.equal(channelHash(5, "a b"), "#narrow/channel/5-a-b");
});

test("direct message, views and search URLs round-trip", () => {
  for (const narrow of [
    { kind: "dm", userIds: [3] },
    { kind: "dm", userIds: [3, 7] },
    { kind: "starred" },
    { kind: "mentioned" },
    { kind: "search", text: "sender:me has:link hello" },
    { kind: "all" },
  ]) {
    assert.deepEqual(hashToNarrow(narrowToHash(narrow, lookup)), narrow);
  }
  assert.equal(narrowToHash({ kind: "dm", userIds: [3] }, lookup), "#narrow/dm/3-Iago-Q");
  assert.equal(narrowToHash({ kind: "dm", userIds: [7, 3] }, lookup), "#narrow/dm/3,7-group");
});

test("unknown or malformed URLs show all messages", () => {
  for (const hash of ["", "#", "#settings", "#narrow/channel/x-y", "#narrow/dm/a,b-c", "#narrow/is/foo"]) {
    assert.deepEqual(hashToNarrow(hash), { kind: "all" }, hash);
  }
});

test("API narrows", () => {
  assert.deepEqual(apiNarrow({ kind: "channel", streamId: 4, topic: "t" }), [
    { operator: "channel", operand: 4 },
    { operator: "topic", operand: "t" },
  ]);
  assert.deepEqual(apiNarrow({ kind: "dm", userIds: [3, 7] }), [{ operator: "dm", operand: [3, 7] }]);
  assert.deepEqual(apiNarrow({ kind: "all" }), []);
});

test("live messages match their narrow", () => {
  const inTopic = { type: "stream", stream_id: 4, subject: "Plans" };
  assert.ok(messageMatches({ kind: "channel", streamId: 4, topic: "plans" }, inTopic, [], 1));
  assert.ok(!messageMatches({ kind: "channel", streamId: 4, topic: "other" }, inTopic, [], 1));
  assert.ok(!messageMatches({ kind: "channel", streamId: 5 }, inTopic, [], 1));
  const dm = { type: "private", display_recipient: [{ id: 1 }, { id: 3 }] };
  assert.ok(messageMatches({ kind: "dm", userIds: [3] }, dm, [], 1));
  assert.ok(!messageMatches({ kind: "dm", userIds: [3, 7] }, dm, [], 1));
  assert.ok(messageMatches({ kind: "mentioned" }, dm, ["wildcard_mentioned"], 1));
  assert.ok(!messageMatches({ kind: "starred" }, dm, ["read"], 1));
});

test("search text becomes Zulip's narrow terms", async () => {
  const { parseSearch } = await import("../../teamchat/web/static/js/narrow.js");
  assert.deepEqual(parseSearch('stream:design topic:"weekly sync" -is:starred has:link logo http://x'), [
    { operator: "channel", operand: "design" },
    { operator: "topic", operand: "weekly sync" },
    { operator: "is", operand: "starred", negated: true },
    { operator: "has", operand: "link" },
    { operator: "search", operand: "logo http://x" },
  ]);
  assert.deepEqual(parseSearch("sender:iago@example.com"), [
    { operator: "sender", operand: "iago@example.com" },
  ]);
});
