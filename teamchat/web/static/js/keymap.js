// The keyboard shortcuts (Zulip's common ones): which key does what, where the selection moves,
// and which topic `n` goes to. Pure: no DOM, so `node --test` can check it.

// The cheat sheet (`?`) lists these, in this order.
export const SHORTCUTS = [
  { keys: ["c"], action: "compose", description: "New topic: compose a message in this channel" },
  { keys: ["x"], action: "compose-dm", description: "New direct message" },
  { keys: ["r", "Enter"], action: "reply", description: "Reply to the selected message" },
  { keys: ["↑", "k"], action: "select-previous", description: "Select the previous message" },
  { keys: ["↓", "j"], action: "select-next", description: "Select the next message" },
  { keys: ["n"], action: "next-unread-topic", description: "Go to the next unread topic" },
  { keys: ["/"], action: "search", description: "Search messages" },
  { keys: ["Esc"], action: "escape", description: "Leave a field, close a menu, or go back to all messages" },
  { keys: ["?"], action: "help", description: "Show these keyboard shortcuts" },
];

const KEYS = new Map([
  ["c", "compose"],
  ["x", "compose-dm"],
  ["r", "reply"],
  ["Enter", "reply"],
  ["ArrowUp", "select-previous"],
  ["k", "select-previous"],
  ["ArrowDown", "select-next"],
  ["j", "select-next"],
  ["n", "next-unread-topic"],
  ["/", "search"],
  ["?", "help"],
]);

// What a key press does: an action name, or null to leave the key to the browser.
// `where` says where the focus is: {inField (typing in an input/textarea/select),
// inDialog (a modal dialog is open), onControl (a link or button, where Enter is its own)}.
export function keyAction(press, where = {}) {
  if (press.ctrlKey || press.metaKey || press.altKey || press.isComposing) return null;
  if (where.inDialog) return null; // the dialog handles its own keys (Esc closes it)
  if (press.key === "Escape") return where.inField ? "leave-field" : "escape";
  if (where.inField) return null;
  if (press.key === "Enter" && (press.shiftKey || where.onControl)) return null;
  return KEYS.get(press.key) ?? null;
}

// The message id `step` places from `current` in `ids` (their on-screen order), staying within
// the list. With nothing selected yet, moving starts from the newest message (the bottom).
export function stepSelection(ids, current, step) {
  if (!ids.length) return null;
  const at = ids.indexOf(current);
  if (at === -1) return ids[ids.length - 1];
  return ids[Math.min(ids.length - 1, Math.max(0, at + step))];
}

// The topic `n` opens: unread topics in the left pane's order (channels as listed there, topics
// newest first), the one after `current` ({streamId, topic} or null), wrapping around; null when
// nothing else is unread. `places` are the unread messages' {id, streamId, topic}.
export function nextUnreadTopic(places, channelOrder, current) {
  const topics = new Map(); // "stream\0topic (lowercase)" -> {streamId, topic, maxId}
  for (const place of places) {
    if (place.streamId === undefined) continue;
    const key = `${place.streamId}\0${place.topic.toLowerCase()}`;
    const known = topics.get(key);
    if (!known) topics.set(key, { streamId: place.streamId, topic: place.topic, maxId: place.id });
    else known.maxId = Math.max(known.maxId, place.id);
  }
  const rank = new Map(channelOrder.map((id, index) => [id, index]));
  const order = [...topics.values()]
    .filter((entry) => rank.has(entry.streamId))
    .sort((a, b) => rank.get(a.streamId) - rank.get(b.streamId) || b.maxId - a.maxId);
  const same = (entry) =>
    current &&
    entry.streamId === current.streamId &&
    current.topic !== undefined &&
    entry.topic.toLowerCase() === current.topic.toLowerCase();
  let at = order.findIndex(same);
  let start = at + 1;
  if (at === -1 && current && rank.has(current.streamId)) {
    // In a whole channel (or another topic): this channel's unread topics first, then onwards.
    at = order.findIndex((entry) => rank.get(entry.streamId) >= rank.get(current.streamId));
    start = at === -1 ? 0 : at;
  }
  const rest = [...order.slice(start), ...order.slice(0, at === -1 ? 0 : at)];
  const next = rest[0];
  return next ? { streamId: next.streamId, topic: next.topic } : null;
}
