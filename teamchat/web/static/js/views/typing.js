// Typing notifications: tell the server while this person types (start, repeated while typing;
// stop when sent or abandoned), and show who else is typing in the conversation on screen.

import { post } from "../api.js";

const REPEAT_MS = 10000;
const STOP_AFTER_MS = 5000;
const EXPIRE_MS = 15000;

export class TypingSender {
  constructor() {
    this.target = null;
    this.lastStart = 0;
    this.stopTimer = null;
  }

  params(target, op) {
    if (target.type === "stream") {
      return { op, type: "stream", stream_id: target.streamId, topic: target.topic };
    }
    return { op, type: "direct", to: target.userIds };
  }

  typed(target) {
    const key = JSON.stringify(target);
    if (this.target && JSON.stringify(this.target) !== key) this.stop();
    const now = Date.now();
    if (!this.target || now - this.lastStart > REPEAT_MS) {
      this.target = target;
      this.lastStart = now;
      post("/typing", this.params(target, "start")).catch(() => {});
    }
    clearTimeout(this.stopTimer);
    this.stopTimer = setTimeout(() => this.stop(), STOP_AFTER_MS);
  }

  stop() {
    clearTimeout(this.stopTimer);
    if (!this.target) return;
    post("/typing", this.params(this.target, "stop")).catch(() => {});
    this.target = null;
  }
}

// Who is typing where: "stream:ID:topic" or "dm:1,2" -> Map(user id -> expiry time).
export class TypingShown {
  constructor(myId) {
    this.myId = myId;
    this.typists = new Map();
  }

  static key(event, myId) {
    if (event.message_type === "stream") return `stream:${event.stream_id}:${event.topic.toLowerCase()}`;
    const ids = event.recipients.map((r) => r.user_id).filter((id) => id !== myId);
    return `dm:${ids.sort((a, b) => a - b).join(",")}`;
  }

  apply(event) {
    if (event.sender.user_id === this.myId) return;
    const key = TypingShown.key(event, this.myId);
    const typists = this.typists.get(key) || new Map();
    if (event.op === "start") typists.set(event.sender.user_id, Date.now() + EXPIRE_MS);
    else typists.delete(event.sender.user_id);
    this.typists.set(key, typists);
  }

  // The user ids typing in `narrow` (a topic or a DM conversation) right now.
  inNarrow(narrow) {
    let key = null;
    if (narrow.kind === "channel" && narrow.topic !== undefined) {
      key = `stream:${narrow.streamId}:${narrow.topic.toLowerCase()}`;
    } else if (narrow.kind === "dm") key = `dm:${narrow.userIds.join(",")}`;
    const typists = key && this.typists.get(key);
    if (!typists) return [];
    const now = Date.now();
    return [...typists.entries()].filter(([, until]) => until > now).map(([id]) => id);
  }
}
