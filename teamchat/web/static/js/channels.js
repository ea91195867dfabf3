// Every channel this person may see (subscribed, formerly subscribed, never subscribed), with
// its subscribers and the organization's default channels: what the channel browser, channel
// settings and the compose box's mention warning need. From /register (include_subscribers)
// and kept current by subscription, stream and default_streams events. Pure: `node --test`.

export class ChannelDirectory {
  constructor(register) {
    this.myId = register.user_id;
    this.channels = new Map(); // stream id -> stream object
    this.subscribers = new Map(); // stream id -> Set of user ids
    this.mine = new Set(); // stream ids this person is subscribed to
    const lists = [register.subscriptions, register.unsubscribed, register.never_subscribed];
    for (const list of lists) for (const stream of list || []) this.note(stream);
    for (const sub of register.subscriptions || []) this.mine.add(sub.stream_id);
    this.defaults = new Set(register.realm_default_streams || []);
  }

  note(stream) {
    const { subscribers, ...fields } = stream;
    this.channels.set(stream.stream_id, { ...this.channels.get(stream.stream_id), ...fields });
    if (subscribers) this.subscribers.set(stream.stream_id, new Set(subscribers));
  }

  get(streamId) {
    return this.channels.get(streamId);
  }

  byName(name) {
    const wanted = name.toLowerCase();
    return [...this.channels.values()].find((stream) => stream.name.toLowerCase() === wanted);
  }

  isSubscribed(streamId) {
    return this.mine.has(streamId);
  }

  subscriberIds(streamId) {
    return [...(this.subscribers.get(streamId) ?? [])];
  }

  // The subscriber count: from the subscriber list when known, else the stream object's.
  count(streamId) {
    const known = this.subscribers.get(streamId);
    return known ? known.size : (this.channels.get(streamId)?.subscriber_count ?? 0);
  }

  hasSubscriber(streamId, userId) {
    return Boolean(this.subscribers.get(streamId)?.has(userId));
  }

  // Channels not archived, by name; `text` filters on name and description.
  list(text = "") {
    const needle = text.trim().toLowerCase();
    return [...this.channels.values()]
      .filter((stream) => !stream.is_archived)
      .filter(
        (stream) =>
          !needle ||
          stream.name.toLowerCase().includes(needle) ||
          (stream.description ?? "").toLowerCase().includes(needle),
      )
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  // Apply one event; true when what the directory shows changed.
  apply(event) {
    if (event.type === "default_streams") {
      this.defaults = new Set(event.default_streams);
      return true;
    }
    if (event.type === "stream") return this.applyStream(event);
    if (event.type === "subscription") return this.applySubscription(event);
    return false;
  }

  applyStream(event) {
    if (event.op === "create") {
      for (const stream of event.streams) this.note(stream);
    } else if (event.op === "delete") {
      for (const stream of event.streams) {
        this.channels.delete(stream.stream_id);
        this.subscribers.delete(stream.stream_id);
        this.mine.delete(stream.stream_id);
      }
    } else if (event.op === "update" && this.channels.has(event.stream_id)) {
      const stream = this.channels.get(event.stream_id);
      stream[event.property] = event.value;
      for (const field of ["rendered_description", "history_public_to_subscribers", "is_web_public"]) {
        if (field in event) stream[field] = event[field];
      }
    } else return false;
    return true;
  }

  applySubscription(event) {
    const ids = (list) => list.map((sub) => sub.stream_id);
    switch (event.op) {
      case "add":
        for (const sub of event.subscriptions) {
          this.note(sub);
          this.mine.add(sub.stream_id);
          if (!this.subscribers.has(sub.stream_id)) this.subscribers.set(sub.stream_id, new Set());
          this.subscribers.get(sub.stream_id).add(this.myId);
        }
        return true;
      case "remove":
        for (const streamId of ids(event.subscriptions)) {
          this.mine.delete(streamId);
          this.subscribers.get(streamId)?.delete(this.myId);
          const stream = this.channels.get(streamId);
          if (stream) stream.subscriber_count = this.count(streamId);
        }
        return true;
      case "peer_add":
      case "peer_remove":
        for (const streamId of event.stream_ids) {
          if (!this.subscribers.has(streamId)) this.subscribers.set(streamId, new Set());
          const known = this.subscribers.get(streamId);
          for (const userId of event.user_ids) {
            if (event.op === "peer_add") known.add(userId);
            else known.delete(userId);
          }
        }
        return true;
      case "update":
        if (!this.channels.has(event.stream_id)) return false;
        this.channels.get(event.stream_id)[event.property] = event.value;
        return true;
      default:
        return false;
    }
  }
}

// A mention's people in a message being written: `@**Name**` and `@**Name|id**`, not silent
// mentions (`@_**Name**`, which notify nobody) nor wildcards. Returns user ids, each once.
export function mentionedUserIds(content, users) {
  const found = new Set();
  // Zulip's rule: a mention starts the text or follows a space or one of ' " ( , : <
  const pattern = /(^|[\s'"(,:<])@\*\*([^*\n]+?)\*\*/g;
  for (const match of content.matchAll(pattern)) {
    const text = match[2];
    const bar = text.lastIndexOf("|");
    if (bar >= 0 && /^\d+$/.test(text.slice(bar + 1))) {
      const id = Number(text.slice(bar + 1));
      if (users.has(id)) found.add(id);
      continue;
    }
    const name = text.toLowerCase();
    const named = [...users.values()].filter(
      (user) => user.is_active !== false && user.full_name.toLowerCase() === name,
    );
    if (named.length === 1) found.add(named[0].user_id);
  }
  return [...found];
}
