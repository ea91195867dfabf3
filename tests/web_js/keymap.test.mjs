// node --test: the keyboard shortcuts (which key does what, selection steps, the next unread topic).
import assert from "node:assert/strict";
import { test } from "node:test";

import { SHORTCUTS, keyAction, nextUnreadTopic, stepSelection } from "../../teamchat/web/static/js/keymap.js";

const press = (key, extra = {}) => ({ key, ...extra });

test("Zulip's keys map to their actions outside fields", () => {
  const expected = {
    c: "compose",
    x: "compose-dm",
    r: "reply",
    Enter: "reply",
    n: "next-unread-topic",
    "/": "search",
    "?": "help",
    ArrowUp: "select-previous",
    k: "select-previous",
    ArrowDown: "select-next",
    j: "select-next",
    Escape: "escape",
  };
  for (const [key, action] of Object.entries(expected)) assert.equal(keyAction(press(key)), action, key);
  assert.equal(keyAction(press("q")), null);
  assert.equal(keyAction(press("C")), null); // Shift+c is not c
});

test("typing in a field, a dialog and modifier keys are left alone", () => {
  for (const key of ["c", "x", "r", "n", "/", "?", "j", "ArrowUp", "Enter"]) {
    assert.equal(keyAction(press(key), { inField: true }), null, key);
    assert.equal(keyAction(press(key), { inDialog: true }), null, key);
    assert.equal(keyAction(press(key, { ctrlKey: true })), null, key);
    assert.equal(keyAction(press(key, { metaKey: true })), null, key);
    assert.equal(keyAction(press(key, { altKey: true })), null, key);
  }
  assert.equal(keyAction(press("Escape"), { inField: true }), "leave-field");
  assert.equal(keyAction(press("Escape"), { inDialog: true }), null); // the dialog closes itself
  assert.equal(keyAction(press("c", { isComposing: true })), null); // an IME at work
  // Enter on a link or button is theirs; Shift+Enter is never a reply.
  assert.equal(keyAction(press("Enter"), { onControl: true }), null);
  assert.equal(keyAction(press("Enter", { shiftKey: true })), null);
  assert.equal(keyAction(press("r"), { onControl: true }), "reply");
});

test("every action in the cheat sheet is reachable by a key", () => {
  const reachable = new Set(["c", "x", "r", "Enter", "ArrowUp", "k", "ArrowDown", "j", "n", "/", "Escape", "?"]
    .map((key) => keyAction(press(key))));
  for (const shortcut of SHORTCUTS) assert.ok(reachable.has(shortcut.action), shortcut.action);
});

test("the selection steps through the list and stops at its ends", () => {
  const ids = [10, 12, 15];
  assert.equal(stepSelection(ids, null, -1), 15); // starts at the newest
  assert.equal(stepSelection(ids, null, 1), 15);
  assert.equal(stepSelection(ids, 15, -1), 12);
  assert.equal(stepSelection(ids, 12, -1), 10);
  assert.equal(stepSelection(ids, 10, -1), 10);
  assert.equal(stepSelection(ids, 12, 1), 15);
  assert.equal(stepSelection(ids, 15, 1), 15);
  assert.equal(stepSelection(ids, 99, 1), 15); // the selected message is gone
  assert.equal(stepSelection([], null, 1), null);
});

test("n goes through unread topics in the left pane's order and wraps around", () => {
  // Channels in the pane: 2 (alpha), then 1 (beta); 3 is not subscribed any more.
  const order = [2, 1];
  const places = [
    { id: 5, streamId: 1, topic: "old" },
    { id: 9, streamId: 1, topic: "new" },
    { id: 7, streamId: 2, topic: "Lunch" },
    { id: 8, streamId: 2, topic: "lunch" }, // the same topic, other case
    { id: 11, dm: "4" }, // direct messages are not topics
    { id: 12, streamId: 3, topic: "gone" },
  ];
  assert.deepEqual(nextUnreadTopic(places, order, null), { streamId: 2, topic: "Lunch" });
  assert.deepEqual(nextUnreadTopic(places, order, { streamId: 2, topic: "LUNCH" }), { streamId: 1, topic: "new" });
  assert.deepEqual(nextUnreadTopic(places, order, { streamId: 1, topic: "new" }), { streamId: 1, topic: "old" });
  assert.deepEqual(nextUnreadTopic(places, order, { streamId: 1, topic: "old" }), { streamId: 2, topic: "Lunch" });
  // In a whole channel, or a topic already read: that channel's unread topics first.
  assert.deepEqual(nextUnreadTopic(places, order, { streamId: 1 }), { streamId: 1, topic: "new" });
  assert.deepEqual(nextUnreadTopic(places, order, { streamId: 1, topic: "read" }), { streamId: 1, topic: "new" });
  // Nothing else unread.
  assert.equal(nextUnreadTopic([{ id: 1, streamId: 2, topic: "a" }], order, { streamId: 2, topic: "a" }), null);
  assert.equal(nextUnreadTopic([], order, null), null);
});
