// The "Recent conversations" view (#recent): one row per topic or direct message conversation,
// most recent first, with its unread count, participants and time; filtered by text and
// "unread only"; kept current by message, edit, deletion and flag events.

import { get } from "../api.js";
import { badge, el } from "../dom.js";
import { channelHash, dmHash } from "../narrow.js";
import { RecentConversations, rowMatches } from "../recent.js";
import { avatar } from "./messages.js";
import { topicMenuButton } from "./topic_menu.js";

const FETCH = 1000;

const timeText = (ts) => {
  const date = new Date(ts * 1000);
  const today = new Date().toDateString() === date.toDateString();
  return today
    ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleDateString([], { month: "short", day: "numeric" });
};

export class RecentView {
  constructor(container, state, narrow, actions) {
    this.container = container;
    this.state = state;
    this.narrow = narrow;
    this.actions = actions; // {onError(text), onRead()}
    this.messages = new Map();
    this.filterText = "";
    this.unreadOnly = false;
    this.body = null;
  }

  destroy() {
    this.destroyed = true;
  }

  setEchoes() {}

  async load() {
    this.container.replaceChildren(el("p", { class: "loading", text: "Loading conversations…" }));
    const body = await get("/messages", {
      anchor: "newest",
      num_before: FETCH,
      num_after: 0,
      narrow: [],
      apply_markdown: false,
      client_gravatar: false,
    });
    if (this.destroyed) return;
    for (const message of body.messages) this.messages.set(message.id, message);
    this.drawFrame();
  }

  drawFrame() {
    const filter = el("input", {
      type: "search",
      class: "recent-filter-text",
      placeholder: "Filter conversations",
      "aria-label": "Filter conversations",
    });
    filter.value = this.filterText;
    filter.addEventListener("input", () => {
      this.filterText = filter.value;
      this.redraw();
    });
    const unread = el("input", { type: "checkbox", id: "recent-unread-only" });
    unread.checked = this.unreadOnly;
    unread.addEventListener("change", () => {
      this.unreadOnly = unread.checked;
      this.redraw();
    });
    this.body = el("tbody");
    this.container.replaceChildren(
      el("div", { class: "recent-view" }, [
        el("div", { class: "recent-filters" }, [
          filter,
          el("label", { for: "recent-unread-only", class: "recent-unread-toggle" }, [unread, " Unread only"]),
        ]),
        el("table", { class: "recent-table", "aria-label": "Recent conversations" }, [
          el("thead", {}, [
            el("tr", {}, [
              el("th", { scope: "col", text: "Conversation" }),
              el("th", { scope: "col", text: "Unread" }),
              el("th", { scope: "col", text: "Participants" }),
              el("th", { scope: "col", text: "Time" }),
            ]),
          ]),
          this.body,
        ]),
      ]),
    );
    this.redraw();
  }

  redraw() {
    if (!this.body) return;
    const state = this.state;
    const recent = new RecentConversations(state.myId);
    for (const message of [...this.messages.values()].sort((a, b) => a.id - b.id)) recent.add(message);
    const rows = [];
    for (const row of recent.rows()) {
      const unread =
        row.type === "stream" ? state.unread.topicCount(row.streamId, row.topic) : state.unread.dmCount(row.userIds);
      const people = row.participants.map((id) => state.userName(id));
      const names =
        row.type === "stream"
          ? [state.streamName(row.streamId), row.topic, ...people]
          : [...row.userIds.map((id) => state.userName(id)), ...people];
      if (!rowMatches(row, this.filterText, names, this.unreadOnly, unread)) continue;
      rows.push(this.rowNode(row, unread, people));
    }
    if (!rows.length) {
      rows.push(el("tr", {}, [el("td", { colspan: "4", class: "empty", text: "No conversations match." })]));
    }
    this.body.replaceChildren(...rows);
  }

  rowNode(row, unread, people) {
    const state = this.state;
    let where;
    if (row.type === "stream") {
      const name = state.streamName(row.streamId);
      const menu = topicMenuButton(
        state,
        { streamId: row.streamId, topic: row.topic, messageId: row.maxId },
        (text) => this.actions.onError(text),
      );
      where = el("td", { class: "recent-conversation" }, [
        el("a", { class: "recent-channel", href: channelHash(row.streamId, name), text: `# ${name}` }),
        el("span", { class: "sep", "aria-hidden": "true", text: " › " }),
        el("a", { class: "recent-topic", href: channelHash(row.streamId, name, row.topic), text: row.topic || "(no topic)" }),
        menu,
      ]);
    } else {
      const names = (id) => state.userName(id);
      where = el("td", { class: "recent-conversation" }, [
        el("a", { class: "recent-topic", href: dmHash(row.userIds, names), text: row.userIds.map(names).join(", ") }),
      ]);
    }
    return el("tr", { class: `recent-row${unread ? " unread" : ""}`, dataset: { key: row.key } }, [
      where,
      el("td", { class: "recent-unread" }, [badge(unread, "unread")]),
      el("td", {}, [
        el("div", { class: "recent-participants" }, [
          ...row.participants.map((id) => {
            const node = avatar(id, state.userName(id));
            node.setAttribute("title", state.userName(id));
            return node;
          }),
          el("span", { class: "visually-hidden", text: people.join(", ") }),
        ]),
      ]),
      el("td", { class: "recent-time" }, [
        el("time", { datetime: new Date(row.timestamp * 1000).toISOString(), text: timeText(row.timestamp) }),
      ]),
    ]);
  }

  onEvent(event) {
    switch (event.type) {
      case "message":
        this.messages.set(event.message.id, event.message);
        return this.redraw();
      case "update_message":
        if (event.subject === undefined && event.new_stream_id === undefined) return undefined;
        for (const id of event.message_ids || [event.message_id]) {
          const message = this.messages.get(id);
          if (!message) continue;
          if (event.subject !== undefined) message.subject = event.subject;
          if (event.new_stream_id !== undefined) message.stream_id = event.new_stream_id;
        }
        return this.redraw();
      case "delete_message":
        for (const id of event.message_ids || [event.message_id]) this.messages.delete(id);
        return this.redraw();
      case "update_message_flags":
      case "subscription":
      case "realm_user":
        return this.redraw();
      default:
        return undefined;
    }
  }
}
