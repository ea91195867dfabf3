// node --test: the compose box's autocomplete (tokens, ranking, inserted markup) and upload text.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  applyChoice,
  channelItems,
  emojiGlyph,
  emojiItems,
  findToken,
  matchRank,
  mentionItems,
  topicChoices,
  topicItems,
  tooLarge,
  uploadMarkdown,
  uploadPlaceholder,
} from "../../teamchat/web/static/js/autocomplete.js";

const at = (text) => findToken(text, text.length);

test("the token before the caret: mentions, channels, topics, emoji", () => {
  assert.deepEqual(at("hi @ad"), { kind: "mention", silent: false, query: "ad", start: 3 });
  assert.deepEqual(at("@_Bo"), { kind: "mention", silent: true, query: "Bo", start: 0 });
  assert.deepEqual(at("@Ada Lo"), { kind: "mention", silent: false, query: "Ada Lo", start: 0 });
  assert.deepEqual(at("see #des"), { kind: "channel", query: "des", start: 4 });
  assert.deepEqual(at("#**design>pl"), { kind: "topic", channel: "design", query: "pl", start: 0 });
  assert.deepEqual(at("#**design**>"), { kind: "topic", channel: "design", query: "", start: 0 });
  assert.deepEqual(at("so :tad"), { kind: "emoji", query: "tad", start: 3 });
  // Not a token: inside a word (email addresses, times), after a finished mention, no text.
  assert.equal(at("mail ada@example"), null);
  assert.equal(at("at 10:30"), null);
  assert.equal(at("@**Ada|3** ok"), null);
  assert.equal(at("plain words"), null);
  assert.equal(at("@ leading space"), null);
  assert.equal(findToken("@ad and more", 3)?.query, "ad");
});

test("ranking: whole name, then start, then a word's start, then inside", () => {
  assert.equal(matchRank("Ada", "ada"), 0);
  assert.equal(matchRank("Ada Lovelace", "ad"), 1);
  assert.equal(matchRank("Ada Lovelace", "love"), 2);
  assert.equal(matchRank("Ada Lovelace", "vel"), 3);
  assert.equal(matchRank("Ada Lovelace", "xyz"), null);
});

const users = [
  { user_id: 1, full_name: "Ada Lovelace", email: "ada@x.test" },
  { user_id: 2, full_name: "Bob Adams", email: "bob@x.test" },
  { user_id: 3, full_name: "Gone Ada", email: "gone@x.test", is_active: false },
  { user_id: 4, full_name: "Cleo", email: "cleo@x.test" },
];
const groups = [
  { id: 10, name: "admins-team", description: "The admins", is_system_group: false },
  { id: 11, name: "role:administrators", is_system_group: true },
];

test("mentions: people then groups and wildcards, Zulip's markup", () => {
  const items = mentionItems("ad", false, { users, groups, inChannel: true });
  assert.deepEqual(
    items.map((item) => item.label),
    ["Ada Lovelace", "admins-team", "Bob Adams"],
  );
  assert.equal(items[0].insert, "@**Ada Lovelace|1** ");
  assert.equal(items[1].insert, "@*admins-team* ");
  assert.equal(mentionItems("ad", true, { users, groups })[0].insert, "@_**Ada Lovelace|1** ");
  // By email too; deactivated people and system groups never.
  assert.deepEqual(mentionItems("cleo@", false, { users, groups }).map((i) => i.id), [4]);
  assert.equal(mentionItems("gone", false, { users, groups }).length, 0);
  assert.equal(mentionItems("role", false, { users, groups }).length, 0);
});

test("wildcards where they are allowed", () => {
  const channel = mentionItems("", false, { users: [], groups: [], inChannel: true });
  assert.deepEqual(channel.map((i) => i.label), ["all", "channel", "everyone", "topic"]);
  assert.equal(channel[1].insert, "@**channel** ");
  const dm = mentionItems("", false, { users: [], groups: [], inChannel: false });
  assert.deepEqual(dm.map((i) => i.label), ["all", "everyone"]);
  assert.equal(mentionItems("all", false, { users: [], wildcardsAllowed: false }).length, 0);
});

test("recent senders come first among equally good matches", () => {
  const recentIds = new Map([[2, 0]]);
  const items = mentionItems("", false, { users, groups: [], inChannel: false, recentIds });
  assert.equal(items[0].label, "Bob Adams");
});

test("channels and topics", () => {
  const channels = [
    { stream_id: 1, name: "design" },
    { stream_id: 2, name: "web design" },
    { stream_id: 3, name: "general" },
  ];
  const items = channelItems("des", channels);
  assert.deepEqual(items.map((i) => i.label), ["design", "web design"]);
  assert.equal(items[0].insert, "#**design** ");
  const topics = topicItems("p", "design", ["plans", "old plans", "release"]);
  assert.deepEqual(topics.map((i) => i.label), ["plans", "old plans"]);
  assert.equal(topics[0].insert, "#**design>plans** ");
  // The topic field: most recent first among equal matches.
  assert.deepEqual(topicChoices("", ["b", "a"]).map((i) => i.label), ["b", "a"]);
  assert.equal(topicChoices("a", ["b", "a"])[0].insert, "a");
});

test("emoji: Unicode names and aliases, custom emoji, never a match in mid-word", () => {
  const codeToNames = { "1f389": ["tada", "party_popper"], "1f44d": ["+1", "thumbs_up", "like"], "1f600": ["grinning"] };
  const realm = { 1: { name: "parrot", source_url: "/user_avatars/1/emoji/parrot.png" }, 2: { name: "party_old", deactivated: true } };
  const items = emojiItems("par", codeToNames, realm);
  assert.deepEqual(items.map((i) => i.label), ["parrot", "party_popper"]);
  assert.equal(items[0].imageUrl, "/user_avatars/1/emoji/parrot.png");
  assert.equal(items[1].glyph, "🎉");
  assert.equal(items[1].insert, ":party_popper: ");
  assert.deepEqual(emojiItems("up", codeToNames, {}).map((i) => i.label), ["thumbs_up"]);
  assert.deepEqual(emojiItems("inn", codeToNames, {}), []);
  assert.equal(emojiGlyph("1f468-200d-1f4bb"), "👨‍💻");
});

test("a choice replaces the token and puts the caret after it", () => {
  const text = "hi @ad there";
  const token = findToken(text, 6);
  assert.deepEqual(applyChoice(text, 6, token, "@**Ada Lovelace|1** "), {
    text: "hi @**Ada Lovelace|1** there",
    caret: 23,
  });
  const end = applyChoice("go #des", 7, findToken("go #des", 7), "#**design** ");
  assert.deepEqual(end, { text: "go #**design** ", caret: 15 });
});

test("upload markdown, placeholder and size check", () => {
  assert.equal(uploadMarkdown("dot [1].png", "/user_uploads/2/ab/dot.png"), "[dot 1.png](/user_uploads/2/ab/dot.png)");
  assert.equal(uploadPlaceholder("a.png"), "[Uploading a.png…]()");
  assert.equal(tooLarge("big.bin", 2 * 1024 * 1024, 1), '"big.bin" is larger than the maximum file size for uploads (1 MiB).');
  assert.equal(tooLarge("ok.bin", 1024, 1), null);
});

test("recipients: channels and people, and one more person for a group DM", async () => {
  const { recipientItems } = await import("../../teamchat/web/static/js/autocomplete.js");
  const channels = [{ stream_id: 7, name: "adventures" }];
  const found = recipientItems("ad", channels, users);
  assert.deepEqual(found.map((i) => [i.label, i.value]), [
    ["# adventures", "s:7"],
    ["Ada Lovelace", "d:1"],
    ["Bob Adams", "d:2"],
  ]);
  const more = recipientItems("cle", channels, users, [2, 1]);
  assert.deepEqual(more.map((i) => [i.label, i.value]), [
    ["Cleo", "d:4"],
    ["+ Cleo", "d:1,2,4"],
  ]);
});

test("group settings: a group id or members and subgroups, through nested groups", async () => {
  const { inGroupSetting } = await import("../../teamchat/web/static/js/autocomplete.js");
  const groups = new Map([
    [1, { id: 1, members: [5], direct_subgroup_ids: [2] }],
    [2, { id: 2, members: [6], direct_subgroup_ids: [1] }], // a loop is not followed forever
    [3, { id: 3, members: [], direct_subgroup_ids: [] }],
  ]);
  assert.equal(inGroupSetting(1, 6, groups), true);
  assert.equal(inGroupSetting(3, 6, groups), false);
  assert.equal(inGroupSetting(1, 7, groups), false);
  assert.equal(inGroupSetting({ direct_members: [7], direct_subgroups: [] }, 7, groups), true);
  assert.equal(inGroupSetting({ direct_members: [], direct_subgroups: [2] }, 5, groups), true);
  assert.equal(inGroupSetting(undefined, 5, groups), true);
});
