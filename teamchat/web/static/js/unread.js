// Unread bookkeeping: which message ids are unread, and where (channel+topic or a DM
// conversation), kept from /register's unread_msgs and then from events. Pure: no DOM.

import { dmUserIds } from "./narrow.js";

const dmKey = (userIds) => userIds.join(",");

export class Unread {
  constructor(unreadMsgs, myId) {
    this.myId = myId;
    this.byId = new Map(); // message id -> {streamId, topic} | {dm: "1,2"}
    this.mentions = new Set(unreadMsgs.mentions || []);
    for (const entry of unreadMsgs.streams || []) {
      for (const id of entry.unread_message_ids) {
        this.byId.set(id, { streamId: entry.stream_id, topic: entry.topic });
      }
    }
    for (const entry of unreadMsgs.pms || []) {
      const other = entry.other_user_id ?? entry.sender_id;
      for (const id of entry.unread_message_ids) this.byId.set(id, { dm: String(other) });
    }
    for (const entry of unreadMsgs.huddles || []) {
      const others = entry.user_ids_string
        .split(",")
        .map(Number)
        .filter((id) => id !== myId);
      for (const id of entry.unread_message_ids) this.byId.set(id, { dm: dmKey(others) });
    }
  }

  placeOf(message) {
    if (message.type === "stream") return { streamId: message.stream_id, topic: message.subject };
    return { dm: dmKey(dmUserIds(message, this.myId)) };
  }

  // A new message (message event): unread unless its flags say read.
  addMessage(message, flags) {
    if (flags.includes("read")) return;
    this.byId.set(message.id, this.placeOf(message));
    if (flags.some((flag) => flag === "mentioned" || flag === "wildcard_mentioned")) {
      this.mentions.add(message.id);
    }
  }

  markRead(ids) {
    for (const id of ids) {
      this.byId.delete(id);
      this.mentions.delete(id);
    }
  }

  // update_message_flags remove "read": the event's message_details say where each one is.
  markUnread(ids, details) {
    for (const id of ids) {
      const detail = details?.[id];
      if (!detail) continue;
      if (detail.type === "stream") {
        this.byId.set(id, { streamId: detail.stream_id, topic: detail.topic });
      } else {
        const others = (detail.user_ids || []).filter((uid) => uid !== this.myId);
        this.byId.set(id, { dm: dmKey(others.length ? others.sort((a, b) => a - b) : [this.myId]) });
      }
      if (detail.mentioned) this.mentions.add(id);
    }
  }

  // update_message that moved messages to another topic or channel.
  move(ids, streamId, topic) {
    for (const id of ids) {
      const place = this.byId.get(id);
      if (place && place.streamId !== undefined) {
        this.byId.set(id, { streamId: streamId ?? place.streamId, topic: topic ?? place.topic });
      }
    }
  }

  count(predicate = () => true) {
    let total = 0;
    for (const place of this.byId.values()) if (predicate(place)) total += 1;
    return total;
  }

  channelCount(streamId) {
    return this.count((place) => place.streamId === streamId);
  }

  topicCount(streamId, topic) {
    const lower = topic.toLowerCase();
    return this.count((p) => p.streamId === streamId && p.topic.toLowerCase() === lower);
  }

  dmCount(userIds) {
    const key = dmKey(userIds);
    return this.count((place) => place.dm === key);
  }

  isUnread(id) {
    return this.byId.has(id);
  }
}
