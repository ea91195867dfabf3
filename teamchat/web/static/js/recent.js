// "Recent conversations": one entry per topic or direct message conversation, with its latest
// message, time and participants, built from messages (the view rebuilds it when messages move or go).
// Pure: `node --test` checks it.

import { dmUserIds } from "./narrow.js";

const PARTICIPANTS_SHOWN = 4;

export function conversationKey(message, myId) {
  if (message.type === "stream") return `s:${message.stream_id}:${message.subject.toLowerCase()}`;
  return `d:${dmUserIds(message, myId).join(",")}`;
}

export class RecentConversations {
  constructor(myId) {
    this.myId = myId;
    this.byKey = new Map(); // key -> {key, type, streamId, topic, userIds, maxId, timestamp, senders}
    this.seen = new Set();
  }

  add(message) {
    if (this.seen.has(message.id)) return;
    this.seen.add(message.id);
    const key = conversationKey(message, this.myId);
    let entry = this.byKey.get(key);
    if (!entry) {
      entry =
        message.type === "stream"
          ? { key, type: "stream", streamId: message.stream_id, topic: message.subject }
          : { key, type: "private", userIds: dmUserIds(message, this.myId) };
      Object.assign(entry, { maxId: 0, timestamp: 0, senders: new Map() });
      this.byKey.set(key, entry);
    }
    entry.senders.set(message.sender_id, Math.max(entry.senders.get(message.sender_id) ?? 0, message.id));
    if (message.id > entry.maxId) {
      entry.maxId = message.id;
      entry.timestamp = message.timestamp;
      if (message.type === "stream") entry.topic = message.subject;
    }
  }

  // Most recent first; the participants are the latest senders (most recent first).
  rows() {
    return [...this.byKey.values()]
      .sort((a, b) => b.maxId - a.maxId)
      .map((entry) => ({
        ...entry,
        participants: [...entry.senders.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, PARTICIPANTS_SHOWN)
          .map(([id]) => id),
      }));
  }
}

// Whether a row matches the filter text (channel, topic or a person's name) and the unread toggle.
export function rowMatches(row, text, names, unreadOnly, unreadCount) {
  if (unreadOnly && !unreadCount) return false;
  const wanted = text.trim().toLowerCase();
  if (!wanted) return true;
  return names.some((name) => name.toLowerCase().includes(wanted));
}
