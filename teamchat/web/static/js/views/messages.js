// The message list of one narrow: the newest 100 messages, older ones when scrolled to the top,
// live changes from events, local echoes of messages being sent, and marking messages read as
// they are seen. Message content is the server's rendered HTML (sanitized there); it is the
// only HTML this client ever inserts.

import { get, post } from "../api.js";
import { el } from "../dom.js";
import { layoutRows } from "../grouping.js";
import { applyMathStyles } from "../math_styles.js";
import { apiNarrow, channelHash, dmHash, dmUserIds, messageMatches } from "../narrow.js";
import { actionsNode, editorNode } from "./message_actions.js";
import { decorateContent } from "./message_content.js";
import { reactionsNode } from "./reactions.js";
import { focusKey, restoreFocus } from "./keep_focus.js";
import { topicMenuButton } from "./topic_menu.js";

const BATCH = 100;
const READ_DELAY_MS = 400;
const MENTION_FLAGS = ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"];

const timeText = (ts) =>
  new Date(ts * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
const dayText = (ts) =>
  new Date(ts * 1000).toLocaleDateString([], {
    weekday: "short",
    year: "numeric",
    month: "short",
    day: "numeric",
  });

function initials(name) {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => word[0].toUpperCase())
    .join("");
}

export function avatar(userId, name) {
  return el("span", { class: `avatar color-${userId % 8}`, "aria-hidden": "true", text: initials(name) });
}

export class MessageList {
  constructor(container, state, narrow, actions) {
    this.container = container;
    this.state = state;
    this.narrow = narrow;
    this.actions = actions; // {onError(text), onRead()}
    this.messages = [];
    this.echoes = [];
    this.foundOldest = false;
    this.foundNewest = true;
    this.readingPaused = false; // after "mark as unread from here", until another narrow
    this.loadingOlder = false;
    this.pendingRead = new Set();
    this.editing = null; // {id, draft} while the person edits one of their messages
    this.readTimer = null;
    this.observer = new IntersectionObserver((entries) => this.seen(entries), {
      root: container,
      threshold: [0, 0.5, 1],
    });
    this.onScroll = () => {
      if (this.container.scrollTop < 300) this.loadOlder();
      if (this.atBottom()) this.loadNewer();
    };
    this.onVisible = () => {
      if (document.visibilityState === "visible") this.observeUnread();
    };
    container.addEventListener("scroll", this.onScroll);
    document.addEventListener("visibilitychange", this.onVisible);
  }

  destroy() {
    this.destroyed = true; // a fetch still on its way must not draw over the next narrow
    this.observer.disconnect();
    this.container.removeEventListener("scroll", this.onScroll);
    document.removeEventListener("visibilitychange", this.onVisible);
    clearTimeout(this.readTimer);
    this.flushRead();
  }

  fetch(anchor, includeAnchor, numBefore = BATCH, numAfter = 0) {
    return get("/messages", {
      anchor,
      include_anchor: includeAnchor,
      num_before: numBefore,
      num_after: numAfter,
      narrow: apiNarrow(this.narrow),
      apply_markdown: true,
      client_gravatar: false,
    });
  }

  async load() {
    this.container.replaceChildren(el("p", { class: "loading", text: "Loading messages…" }));
    // Zulip opens a narrow at its first unread message (the newest when all are read).
    const body = await this.fetch("first_unread", true, BATCH, BATCH);
    if (this.destroyed) return;
    // Messages that arrived live while the fetch was on its way stay.
    const fetched = new Set(body.messages.map((m) => m.id));
    const live = this.messages.filter((m) => !fetched.has(m.id));
    this.messages = [...body.messages, ...live].sort((a, b) => a.id - b.id);
    this.foundOldest = body.found_oldest;
    this.foundNewest = body.found_newest;
    this.render();
    this.scrollToFirstUnread();
    if (!this.foundOldest && this.container.scrollHeight <= this.container.clientHeight) {
      await this.loadOlder();
    }
  }

  // The first unread message at the top of the view (below its headers); else the bottom.
  scrollToFirstUnread() {
    const first = this.messages.find((m) => this.state.unread.isUnread(m.id));
    const node = first && this.container.querySelector(`article.message[data-id="${first.id}"]`);
    if (!node) {
      this.container.scrollTop = this.container.scrollHeight;
      return;
    }
    const above = node.previousElementSibling?.matches("h2.recipient") ? node.previousElementSibling : node;
    this.container.scrollTop +=
      above.getBoundingClientRect().top - this.container.getBoundingClientRect().top - 8;
  }

  // The newest messages, at the bottom (the person sent one while reading further up).
  async jumpToNewest() {
    try {
      const body = await this.fetch("newest", true);
      if (this.destroyed) return;
      this.messages = body.messages;
      this.foundOldest = body.found_oldest;
      this.foundNewest = true;
      this.render();
      this.container.scrollTop = this.container.scrollHeight;
    } catch (error) {
      this.actions.onError(`Could not load the newest messages: ${error.message}`);
    }
  }

  // Opened at an unread message with more after it: the next batch as the person scrolls down.
  async loadNewer() {
    if (this.foundNewest || this.loadingNewer || !this.messages.length) return;
    this.loadingNewer = true;
    try {
      const body = await this.fetch(this.messages[this.messages.length - 1].id, false, 0, BATCH);
      if (this.destroyed) return;
      const known = new Set(this.messages.map((m) => m.id));
      this.messages = [...this.messages, ...body.messages.filter((m) => !known.has(m.id))];
      this.foundNewest = body.found_newest;
      const top = this.container.scrollTop;
      this.render();
      this.container.scrollTop = top;
    } catch (error) {
      this.actions.onError(`Could not load newer messages: ${error.message}`);
    } finally {
      this.loadingNewer = false;
    }
  }

  async loadOlder() {
    if (this.foundOldest || this.loadingOlder || !this.messages.length) return;
    this.loadingOlder = true;
    try {
      const body = await this.fetch(this.messages[0].id, false);
      if (this.destroyed) return;
      const known = new Set(this.messages.map((m) => m.id));
      this.messages = [...body.messages.filter((m) => !known.has(m.id)), ...this.messages];
      this.foundOldest = body.found_oldest;
      const fromBottom = this.container.scrollHeight - this.container.scrollTop;
      this.render();
      this.container.scrollTop = this.container.scrollHeight - fromBottom;
    } catch (error) {
      this.actions.onError(`Could not load older messages: ${error.message}`);
    } finally {
      this.loadingOlder = false;
    }
  }

  atBottom() {
    const c = this.container;
    return c.scrollHeight - c.scrollTop - c.clientHeight < 40;
  }

  // Re-draw, keeping the view pinned to the bottom when it was there (or `toBottom`: the
  // person's own new message, which they see arrive wherever they had scrolled).
  redraw(toBottom = false) {
    const pinned = toBottom || this.atBottom();
    const top = this.container.scrollTop;
    const editorFocused = Boolean(document.activeElement?.closest?.(".edit-box"));
    const focused = focusKey(this.container);
    this.render();
    this.container.scrollTop = pinned ? this.container.scrollHeight : top;
    if (editorFocused) this.container.querySelector(".edit-box textarea")?.focus();
    else restoreFocus(this.container, focused);
  }

  render() {
    this.observer.disconnect();
    const nodes = [];
    const empty = !this.messages.length && !this.echoes.length;
    const search = this.narrow.kind === "search";
    if (empty && this.foundOldest && this.foundNewest) {
      // As Zulip's web app: an empty search says so, not "No older messages".
      nodes.push(el("p", { class: "empty", role: "status", text: search ? "No search results." : "No messages here yet." }));
    } else if (this.foundOldest) {
      if (!search) nodes.push(el("p", { class: "history-start", text: "No older messages." }));
    } else nodes.push(el("p", { class: "loading", text: "Scroll up for older messages" }));
    for (const row of layoutRows(this.messages)) nodes.push(this.rowNode(row));
    if (!this.foundNewest) nodes.push(el("p", { class: "loading", text: "Scroll down for newer messages" }));
    // An echo whose message a fetch has already brought in (the person scrolled down to it
    // before its event arrived) is not drawn twice.
    const shown = new Set(this.messages.map((m) => m.id));
    for (const echo of this.echoes) if (!shown.has(echo.messageId)) nodes.push(this.echoNode(echo));
    this.container.replaceChildren(...nodes);
    this.observeUnread();
  }

  rowNode(row) {
    if (row.kind === "day") {
      return el("div", { class: "day", role: "separator" }, [el("span", { text: dayText(row.timestamp) })]);
    }
    if (row.kind === "recipient") return this.recipientNode(row.message);
    return this.messageNode(row.message, row.showSender);
  }

  recipientNode(message) {
    const state = this.state;
    if (message.type === "stream") {
      const name = state.channels.get(message.stream_id)?.name ?? message.display_recipient;
      return el("h2", { class: "recipient stream" }, [
        el("a", { href: channelHash(message.stream_id, name), text: `# ${name}` }),
        el("span", { class: "sep", text: " › ", "aria-hidden": "true" }),
        el("a", {
          href: channelHash(message.stream_id, name, message.subject),
          text: message.subject || "(no topic)",
        }),
        topicMenuButton(
          state,
          { streamId: message.stream_id, topic: message.subject, messageId: message.id },
          (text) => this.actions.onError(text),
        ),
      ]);
    }
    const ids = dmUserIds(message, state.myId);
    const names = ids.map((id) => state.userName(id)).join(", ");
    return el("h2", { class: "recipient dm" }, [
      el("a", { href: dmHash(ids, (id) => state.userName(id)), text: `You and ${names}` }),
    ]);
  }

  messageNode(message, showSender) {
    const unread = this.state.unread.isUnread(message.id);
    const flags = message.flags || [];
    const node = el("article", {
      class: `message${unread ? " unread" : ""}${showSender ? " first" : ""}`,
      dataset: { id: message.id },
      "aria-label": `${message.sender_full_name}, ${timeText(message.timestamp)}`,
    });
    if (showSender) {
      node.append(
        el("div", { class: "sender-line" }, [
          avatar(message.sender_id, message.sender_full_name),
          el("button", {
            type: "button",
            class: "sender",
            dataset: { userId: message.sender_id },
            "aria-haspopup": "dialog",
            text: message.sender_full_name,
          }),
          el("time", {
            datetime: new Date(message.timestamp * 1000).toISOString(),
            text: timeText(message.timestamp),
          }),
        ]),
      );
    }
    node.append(actionsNode(message, this));
    if (this.editing?.id === message.id) {
      node.append(editorNode(message, this));
      return node;
    }
    const content = el("div", { class: "content" });
    // The server's sanitized rendered HTML (with search matches highlighted in a search).
    content.innerHTML = message.match_content ?? message.content;
    decorateContent(content, this.state.myId);
    applyMathStyles(content);
    node.append(content);
    if (message.last_edit_timestamp) node.append(el("span", { class: "edited", text: "(edited)" }));
    node.append(reactionsNode(message, this.state.myId, (error) => this.actions.onError(error)));
    if (flags.includes("starred")) node.classList.add("starred");
    if (MENTION_FLAGS.some((flag) => flags.includes(flag))) node.classList.add("mentioned-me");
    return node;
  }

  echoNode(echo) {
    const status = echo.error
      ? el("p", { class: "echo-status failed", role: "alert" }, [
          el("span", { text: `Not sent: ${echo.error} ` }),
          el("button", { type: "button", text: "Retry", onclick: () => echo.retry() }),
          el("button", { type: "button", text: "Discard", onclick: () => echo.discard() }),
        ])
      : el("p", { class: "echo-status", text: "Sending…" });
    return el("article", { class: `message first echo${echo.error ? " failed" : ""}`, dataset: { localId: echo.localId } }, [
      el("div", { class: "sender-line" }, [
        avatar(this.state.myId, this.state.userName(this.state.myId)),
        el("span", { class: "sender", text: this.state.userName(this.state.myId) }),
      ]),
      el("div", { class: "content" }, [el("p", { text: echo.content })]),
      status,
    ]);
  }

  // Local echo of a message being sent (shown only if it belongs in this narrow).
  setEchoes(echoes) {
    const before = this.echoes.length;
    this.echoes = echoes.filter((echo) => echo.matches(this.narrow));
    this.redraw(this.echoes.length > before);
  }

  // ----- marking read -----

  observeUnread() {
    for (const node of this.container.querySelectorAll("article.message.unread")) {
      this.observer.observe(node);
    }
  }

  seen(entries) {
    if (document.visibilityState !== "visible" || this.readingPaused) return;
    const rootHeight = this.container.clientHeight;
    for (const entry of entries) {
      const visible =
        entry.isIntersecting &&
        (entry.intersectionRatio >= 0.5 || entry.intersectionRect.height >= rootHeight / 2);
      if (!visible) continue;
      const id = Number(entry.target.dataset.id);
      this.observer.unobserve(entry.target);
      entry.target.classList.remove("unread");
      if (this.state.unread.isUnread(id)) this.pendingRead.add(id);
    }
    if (this.pendingRead.size && !this.readTimer) {
      this.readTimer = setTimeout(() => this.flushRead(), READ_DELAY_MS);
    }
  }

  flushRead() {
    this.readTimer = null;
    const ids = [...this.pendingRead];
    this.pendingRead.clear();
    if (!ids.length) return;
    this.state.unread.markRead(ids);
    this.actions.onRead();
    post("/messages/flags", { messages: ids, op: "add", flag: "read" }).catch((error) =>
      this.actions.onError(`Could not mark messages as read: ${error.message}`),
    );
  }

  // ----- live changes -----

  onEvent(event) {
    switch (event.type) {
      case "message":
        return this.addLive(event.message, event.flags || []);
      case "update_message":
        return this.applyEdit(event);
      case "delete_message": {
        const gone = new Set(event.message_ids || [event.message_id]);
        this.messages = this.messages.filter((m) => !gone.has(m.id));
        return this.redraw();
      }
      case "reaction":
        return this.applyReaction(event);
      case "update_message_flags":
        return this.applyFlags(event);
      default:
        return undefined;
    }
  }

  addLive(message, flags) {
    if (!messageMatches(this.narrow, message, flags, this.state.myId)) return;
    if (!this.foundNewest) {
      // Fetched when the person scrolls down to it; their own new message, at once.
      if (message.sender_id === this.state.myId) this.jumpToNewest();
      return;
    }
    if (this.messages.some((m) => m.id === message.id)) return;
    message.flags = flags;
    this.messages.push(message);
    this.messages.sort((a, b) => a.id - b.id);
    this.redraw(message.sender_id === this.state.myId);
  }

  applyEdit(event) {
    const ids = new Set(event.message_ids || [event.message_id]);
    for (const message of this.messages) {
      if (!ids.has(message.id)) continue;
      if (message.id === event.message_id && event.rendered_content !== undefined) {
        message.content = event.rendered_content;
        delete message.match_content; // the highlighting was for the old text
        if (!event.rendering_only) message.last_edit_timestamp = event.edit_timestamp;
      }
      if (event.subject !== undefined) message.subject = event.subject;
      if (event.new_stream_id !== undefined) message.stream_id = event.new_stream_id;
    }
    this.messages = this.messages.filter((m) =>
      messageMatches(this.narrow, m, m.flags || [], this.state.myId) || this.narrow.kind === "search",
    );
    this.redraw();
  }

  applyReaction(event) {
    const message = this.messages.find((m) => m.id === event.message_id);
    if (!message) return;
    const same = (r) =>
      r.user_id === event.user_id &&
      r.emoji_code === event.emoji_code &&
      r.reaction_type === event.reaction_type;
    message.reactions = message.reactions.filter((r) => !same(r));
    if (event.op === "add") {
      const { emoji_name, emoji_code, reaction_type, user_id } = event;
      message.reactions.push({ emoji_name, emoji_code, reaction_type, user_id });
    }
    this.redraw();
  }

  applyFlags(event) {
    const ids = new Set(event.messages);
    for (const message of this.messages) {
      if (!event.all && !ids.has(message.id)) continue;
      const flags = new Set(message.flags || []);
      if (event.op === "add") flags.add(event.flag);
      else flags.delete(event.flag);
      message.flags = [...flags];
    }
    this.redraw();
  }
}
