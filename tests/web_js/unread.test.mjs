// node --test: unread bookkeeping from /register's unread_msgs and from events.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Unread } from "../../teamchat/web/static/js/unread.js";

const ME = 1;

function fresh() {
  return new Unread(
    {
      streams: [{ stream_id: 4, topic: "Plans", unread_message_ids: [10, 11] }],
      pms: [{ other_user_id: 3, unread_message_ids: [12] }],
      huddles: [{ user_ids_string: "1,3,7", unread_message_ids: [13] }],
      mentions: [11],
    },
    ME,
  );
}

test("counts come from unread_msgs", () => {
  const unread = fresh();
  assert.equal(unread.count(), 4);
  assert.equal(unread.channelCount(4), 2);
  assert.equal(unread.topicCount(4, "plans"), 2);
  assert.equal(unread.dmCount([3]), 1);
  assert.equal(unread.dmCount([3, 7]), 1);
});

test("new messages are unread unless flagged read; reading removes them", () => {
  const unread = fresh();
  unread.addMessage({ id: 20, type: "stream", stream_id: 4, subject: "new" }, []);
  unread.addMessage({ id: 21, type: "stream", stream_id: 4, subject: "new" }, ["read"]);
  assert.equal(unread.topicCount(4, "new"), 1);
  unread.markRead([10, 11, 20]);
  assert.equal(unread.channelCount(4), 0);
  assert.equal(unread.mentions.size, 0);
});

test("marking unread again uses the event's message_details", () => {
  const unread = fresh();
  unread.markRead([10, 12]);
  unread.markUnread([10, 12], {
    10: { type: "stream", stream_id: 4, topic: "Plans" },
    12: { type: "private", user_ids: [3] },
  });
  assert.equal(unread.topicCount(4, "Plans"), 2);
  assert.equal(unread.dmCount([3]), 1);
});

test("moved messages count in their new topic", () => {
  const unread = fresh();
  unread.move([10], undefined, "Moved");
  assert.equal(unread.topicCount(4, "Plans"), 1);
  assert.equal(unread.topicCount(4, "moved"), 1);
  unread.move([11], 9, undefined);
  assert.equal(unread.channelCount(9), 1);
});
