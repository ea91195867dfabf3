// node --test: the emoji picker's search and frequently used list, message links and the quote
// form, topic permissions, and the recent conversations bookkeeping.
import assert from "node:assert/strict";
import { test } from "node:test";

import { FrequentEmoji, emojiChars, emojiList, searchEmoji } from "../../teamchat/web/static/js/emoji_data.js";
import { messageUrl, nearHash, quoteText } from "../../teamchat/web/static/js/message_links.js";
import { hashToNarrow, narrowToHash } from "../../teamchat/web/static/js/narrow.js";
import { Permissions, inGroupSetting, toggledResolved } from "../../teamchat/web/static/js/permissions.js";
import { RecentConversations, rowMatches } from "../../teamchat/web/static/js/recent.js";

const CODES = { "1f44d": ["+1", "thumbs_up", "like"], "1f389": ["tada"], "1f600": ["grinning", "happy"], "2764": ["heart"] };
const REALM = { 7: { id: 7, name: "party_parrot", source_url: "/p.png", deactivated: false }, 8: { id: 8, name: "gone", deactivated: true } };

class Storage {
  constructor() {
    this.items = new Map();
  }
  getItem(key) {
    return this.items.get(key) ?? null;
  }
  setItem(key, value) {
    this.items.set(key, value);
  }
}

test("emoji list: active custom emoji first, then Unicode by code point", () => {
  const list = emojiList(CODES, REALM);
  assert.deepEqual(list.map((e) => e.name), ["party_parrot", "grinning", "tada", "+1", "heart"]);
  assert.deepEqual(list[0], { name: "party_parrot", aliases: [], code: "7", type: "realm_emoji", url: "/p.png" });
});

test("emoji characters: emoji presentation for older symbols and keycaps", () => {
  assert.equal(emojiChars("1f44d"), "\u{1f44d}");
  assert.equal(emojiChars("2764"), "\u2764\ufe0f");
  assert.equal(emojiChars("0023-20e3"), "#\ufe0f\u20e3");
  assert.equal(emojiChars("1f937-200d-2640"), "\u{1f937}\u200d\u2640\ufe0f");
  assert.equal(emojiChars("zz"), null);
});

test("emoji search: exact, prefix, word prefix, then inside; aliases count; colons and spaces", () => {
  const list = emojiList(CODES, REALM);
  assert.deepEqual(searchEmoji(list, "thumbs").map((e) => e.name), ["+1"]);
  assert.deepEqual(searchEmoji(list, "up").map((e) => e.name), ["+1"]);
  assert.deepEqual(searchEmoji(list, ":tada:").map((e) => e.name), ["tada"]);
  assert.deepEqual(searchEmoji(list, "thumbs up").map((e) => e.name), ["+1"]);
  assert.deepEqual(searchEmoji(list, "h").map((e) => e.name), ["grinning", "heart", "+1"]);
  assert.equal(searchEmoji(list, "parrot")[0].name, "party_parrot");
  assert.deepEqual(searchEmoji(list, "zzz"), []);
  assert.equal(searchEmoji(list, "  ").length, list.length);
});

test("frequently used: most used first, then most recent; per person; unknown dropped", () => {
  const storage = new Storage();
  const list = emojiList(CODES, REALM);
  const mine = new FrequentEmoji(storage, 1);
  const byName = (name) => list.find((e) => e.name === name);
  mine.note(byName("tada"));
  mine.note(byName("+1"));
  mine.note(byName("tada"));
  mine.note(byName("party_parrot"));
  mine.note({ type: "unicode_emoji", code: "ffff" });
  assert.deepEqual(mine.top(list).map((e) => e.name), ["tada", "party_parrot", "+1"]);
  assert.deepEqual(new FrequentEmoji(storage, 2).top(list), []);
  storage.setItem("teamchat.emoji.recent.3", "not json");
  assert.deepEqual(new FrequentEmoji(storage, 3).top(list), []);
  assert.deepEqual(new FrequentEmoji(null, 4).top(list), []);
});

const lookup = { streamName: () => "design team", userName: (id) => ({ 3: "Iago" })[id] };

test("links: Zulip's near links for channel and DM messages, which open the conversation", () => {
  const inTopic = { id: 42, type: "stream", stream_id: 12, subject: "logo (v2)" };
  assert.equal(nearHash(inTopic, lookup, 1), "#narrow/channel/12-design-team/topic/logo.20.28v2.29/near/42");
  assert.equal(messageUrl("http://h:9991", inTopic, lookup, 1), "http://h:9991/#narrow/channel/12-design-team/topic/logo.20.28v2.29/near/42");
  assert.deepEqual(hashToNarrow(nearHash(inTopic, lookup, 1)), { kind: "channel", streamId: 12, topic: "logo (v2)" });
  const dm = { id: 43, type: "private", display_recipient: [{ id: 1 }, { id: 3 }] };
  assert.equal(nearHash(dm, lookup, 1), "#narrow/dm/3-Iago/near/43");
  assert.deepEqual(hashToNarrow(nearHash(dm, lookup, 1)), { kind: "dm", userIds: [3] });
});

test("quote form: silent mention, said link, a fence longer than the quoted backticks", () => {
  const message = { sender_full_name: "Iago", sender_id: 3 };
  assert.equal(quoteText(message, "hi *there*", "http://h/#x"), "@_**Iago|3** [said](http://h/#x):\n```quote\nhi *there*\n```\n");
  assert.equal(quoteText(message, "```py\nx\n```", "u"), "@_**Iago|3** [said](u):\n````quote\n```py\nx\n```\n````\n");
});

test("recent view hash", () => {
  assert.deepEqual(hashToNarrow("#recent"), { kind: "recent" });
  assert.equal(narrowToHash({ kind: "recent" }, lookup), "#recent");
});

test("permissions: group ids (with subgroups), anonymous groups, channel settings", () => {
  const groups = new Map([
    [1, { id: 1, members: [5], direct_subgroup_ids: [2] }],
    [2, { id: 2, members: [6], direct_subgroup_ids: [1] }],
    [3, { id: 3, members: [7], direct_subgroup_ids: [], deactivated: true }],
  ]);
  assert.ok(inGroupSetting(1, 6, groups)); // through a subgroup
  assert.ok(!inGroupSetting(1, 9, groups)); // cycles end
  assert.ok(!inGroupSetting(3, 7, groups));
  assert.ok(inGroupSetting({ direct_members: [9], direct_subgroups: [] }, 9, groups));
  assert.ok(inGroupSetting({ direct_members: [], direct_subgroups: [2] }, 5, groups));
  assert.ok(!inGroupSetting(undefined, 5, groups));
  const perms = new Permissions(
    { realm_can_resolve_topics_group: 1, realm_can_move_messages_between_topics_group: { direct_members: [], direct_subgroups: [] } },
    [...groups.values()],
    9,
  );
  assert.ok(!perms.canResolve({}));
  assert.ok(!perms.canMoveTopic({ can_move_messages_within_channel_group: 2 }));
  assert.ok(perms.canMoveTopic({ can_move_messages_within_channel_group: { direct_members: [9], direct_subgroups: [] } }));
  perms.apply({ type: "user_group", op: "add_members", group_id: 2, user_ids: [9] });
  assert.ok(perms.canResolve(null));
  perms.apply({ type: "realm", op: "update_dict", property: "default", data: { can_resolve_topics_group: 3 } });
  assert.ok(!perms.canResolve(null));
});

test("resolving toggles Zulip's ✔ prefix", () => {
  assert.equal(toggledResolved("bug"), "✔ bug");
  assert.equal(toggledResolved("✔ bug"), "bug");
});

test("recent conversations: one row per topic or DM, newest first, latest senders first", () => {
  const recent = new RecentConversations(1);
  const stream = (id, topic, sender) => ({ id, type: "stream", stream_id: 4, subject: topic, sender_id: sender, timestamp: id * 10 });
  const dm = (id, sender) => ({ id, type: "private", display_recipient: [{ id: 1 }, { id: 3 }], sender_id: sender, timestamp: id * 10 });
  recent.add(stream(1, "Plans", 3));
  recent.add(dm(2, 3));
  recent.add(stream(3, "plans", 1)); // same topic, other case
  recent.add(stream(4, "Other", 5));
  recent.add(stream(3, "plans", 1)); // twice: counted once
  const rows = recent.rows();
  assert.deepEqual(rows.map((r) => r.key), ["s:4:other", "s:4:plans", "d:3"]);
  assert.deepEqual(rows[1].participants, [1, 3]);
  assert.equal(rows[1].timestamp, 30);
  assert.deepEqual(rows[2].userIds, [3]);
  assert.ok(rowMatches(rows[1], "PLA", ["general", "Plans"], false, 0));
  assert.ok(!rowMatches(rows[1], "", [], true, 0));
  assert.ok(rowMatches(rows[1], "", [], true, 2));
});
