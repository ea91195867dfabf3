// What the client knows from /register, kept current by events: people, subscribed channels,
// recent DM conversations, topics seen, unread messages.

import { ChannelDirectory } from "./channels.js";
import { dmUserIds } from "./narrow.js";
import { Unread } from "./unread.js";

export class State {
  constructor(register) {
    this.myId = register.user_id;
    this.realmName = register.realm_name;
    this.realmHost = register.realm_bot_domain;
    this.queueId = register.queue_id;
    this.lastEventId = register.last_event_id;
    this.maxMessageLength = register.max_message_length;
    this.users = new Map();
    for (const user of [...register.realm_users, ...(register.cross_realm_bots || [])]) {
      this.users.set(user.user_id, user);
    }
    this.channels = new Map();
    for (const sub of register.subscriptions) this.channels.set(sub.stream_id, sub);
    this.directory = new ChannelDirectory(register); // every channel this person may see
    this.dms = new Map(); // "1,2" -> {userIds, maxId}
    for (const conversation of register.recent_private_conversations || []) {
      const ids = conversation.user_ids.length ? conversation.user_ids : [this.myId];
      this.noteDm([...ids].sort((a, b) => a - b), conversation.max_message_id);
    }
    this.topics = new Map(); // stream id -> Map(topic -> max message id), filled on demand
    this.unread = new Unread(register.unread_msgs || {}, this.myId);
  }

  userName(id) {
    return this.users.get(id)?.full_name ?? `User ${id}`;
  }

  streamName(id) {
    return this.channels.get(id)?.name ?? this.directory.get(id)?.name ?? `channel ${id}`;
  }

  sortedChannels() {
    return [...this.channels.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  sortedDms() {
    return [...this.dms.values()].sort((a, b) => b.maxId - a.maxId);
  }

  noteDm(userIds, maxId) {
    const key = userIds.join(",");
    const known = this.dms.get(key);
    if (!known || known.maxId < maxId) this.dms.set(key, { userIds, maxId });
  }

  noteTopic(streamId, topic, maxId) {
    const topics = this.topics.get(streamId);
    if (!topics) return;
    const existing = [...topics.keys()].find((name) => name.toLowerCase() === topic.toLowerCase());
    const name = existing ?? topic;
    topics.set(name, Math.max(topics.get(name) ?? 0, maxId));
  }

  setTopics(streamId, topics) {
    this.topics.set(streamId, new Map(topics.map((topic) => [topic.name, topic.max_id])));
  }

  sortedTopics(streamId) {
    const topics = this.topics.get(streamId);
    if (!topics) return null;
    return [...topics.entries()].sort((a, b) => b[1] - a[1]).map(([name]) => name);
  }

  // Apply one event; returns true when the left pane should be drawn again.
  apply(event) {
    const directory = this.directory.apply(event);
    switch (event.type) {
      case "message": {
        const message = event.message;
        if (message.type === "stream") this.noteTopic(message.stream_id, message.subject, message.id);
        else this.noteDm(dmUserIds(message, this.myId), message.id);
        this.unread.addMessage(message, event.flags || []);
        return true;
      }
      case "update_message_flags":
        if (event.flag !== "read") return false;
        if (event.op === "add") {
          if (event.all) this.unread.markRead([...this.unread.byId.keys()]);
          else this.unread.markRead(event.messages);
        } else this.unread.markUnread(event.messages, event.message_details);
        return true;
      case "delete_message":
        this.unread.markRead(event.message_ids || [event.message_id]);
        return true;
      case "update_message":
        if (event.subject === undefined && event.new_stream_id === undefined) return false;
        this.unread.move(event.message_ids, event.new_stream_id, event.subject);
        if (event.subject !== undefined) {
          this.noteTopic(event.new_stream_id ?? event.stream_id, event.subject, event.message_id);
        }
        return true;
      case "subscription":
        return this.applySubscription(event) || directory;
      case "stream":
        return this.applyStream(event) || directory;
      case "default_streams":
        return directory;
      case "realm_user":
        if (event.op === "add") this.users.set(event.person.user_id, event.person);
        else if (event.op === "remove") {
          // A guest lost access to this person: show them as the server does.
          this.users.set(event.person.user_id, unknownUser(event.person.user_id, this.realmHost));
        } else if (event.op === "update" && this.users.has(event.person.user_id)) {
          Object.assign(this.users.get(event.person.user_id), event.person);
        }
        return true;
      default:
        return false;
    }
  }

  // A channel renamed, redescribed or archived by an administrator.
  applyStream(event) {
    if (event.op === "delete") {
      for (const stream of event.streams) this.channels.delete(stream.stream_id);
    } else if (event.op === "update" && this.channels.has(event.stream_id)) {
      const channel = this.channels.get(event.stream_id);
      channel[event.property] = event.value;
      if (event.rendered_description !== undefined) channel.rendered_description = event.rendered_description;
    } else return false;
    return true;
  }

  applySubscription(event) {
    if (event.op === "add") {
      for (const sub of event.subscriptions) this.channels.set(sub.stream_id, sub);
    } else if (event.op === "remove") {
      for (const sub of event.subscriptions) this.channels.delete(sub.stream_id);
    } else if (event.op === "update" && this.channels.has(event.stream_id)) {
      this.channels.get(event.stream_id)[event.property] = event.value;
    } else return false;
    return true;
  }
}

// The server's "Unknown user" placeholder for someone a limited guest may not access.
export function unknownUser(userId, realmHost) {
  return {
    user_id: userId,
    email: `user${userId}@${realmHost}`,
    delivery_email: null,
    full_name: "Unknown user",
    avatar_url: "/static/images/unknown-user-avatar.png",
    avatar_version: 1,
    is_active: true,
    is_bot: false,
    is_guest: false,
    role: 400,
  };
}
