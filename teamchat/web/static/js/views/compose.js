// The compose box: a channel and topic, or direct message recipients, and the message.
// Enter sends, Shift+Enter starts a new line. A sent message shows at once as a local echo
// that the server's message event replaces, or that stays visibly failed with Retry/Discard.

import { post } from "../api.js";
import { el } from "../dom.js";
import { sameIds } from "../narrow.js";

let nextLocalId = 1;

// Unsent text by conversation, in localStorage (it survives a reload, stays in this browser).
class Drafts {
  constructor(storageKey) {
    this.storageKey = storageKey;
  }

  all() {
    try {
      return JSON.parse(localStorage.getItem(this.storageKey) || "{}");
    } catch {
      return {};
    }
  }

  load(key) {
    return this.all()[key] ?? "";
  }

  save(key, text) {
    const drafts = this.all();
    if (text.trim()) drafts[key] = text;
    else delete drafts[key];
    try {
      localStorage.setItem(this.storageKey, JSON.stringify(drafts));
    } catch {
      // storage full or disabled: drafts just do not survive a reload
    }
  }
}

class Echo {
  constructor(compose, target, content) {
    this.compose = compose;
    this.target = target; // {type: "stream", streamId, topic} | {type: "private", userIds}
    this.content = content;
    this.localId = `${Date.now()}.${nextLocalId++}`;
    this.error = null;
    this.messageId = null;
  }

  matches(narrow) {
    const t = this.target;
    if (narrow.kind === "all") return true;
    if (narrow.kind === "channel") {
      return (
        t.type === "stream" &&
        t.streamId === narrow.streamId &&
        (narrow.topic === undefined || narrow.topic.toLowerCase() === t.topic.toLowerCase())
      );
    }
    return narrow.kind === "dm" && t.type === "private" && sameIds(t.userIds, narrow.userIds);
  }

  retry() {
    this.compose.deliver(this);
  }

  discard() {
    this.compose.drop(this);
  }
}

export class Compose {
  constructor(form, state, actions) {
    this.form = form;
    this.state = state;
    this.actions = actions; // {onEchoes(echoes), onTyping(target | null), onDrawn(this), onKey(event)}
    this.echoes = [];
    this.drafts = new Drafts(`teamchat.drafts.${state.myId}`);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send();
    });
  }

  // Recipient choices: subscribed channels, then people (and the narrow's group, if any).
  options(narrow) {
    const channels = this.state.sortedChannels().map((sub) =>
      el("option", { value: `s:${sub.stream_id}`, text: `# ${sub.name}` }),
    );
    const people = [...this.state.users.values()]
      .filter((user) => !user.is_bot && user.is_active !== false)
      .sort((a, b) => a.full_name.localeCompare(b.full_name))
      .map((user) => el("option", { value: `d:${user.user_id}`, text: user.full_name }));
    const groups = [];
    if (narrow.kind === "dm" && narrow.userIds.length > 1) {
      const names = narrow.userIds.map((id) => this.state.userName(id)).join(", ");
      groups.push(el("option", { value: `d:${narrow.userIds.join(",")}`, text: names }));
    }
    return [
      el("optgroup", { label: "Channels" }, channels),
      el("optgroup", { label: "Direct message" }, [...groups, ...people]),
    ];
  }

  // Channels or people changed: new choices, the current one kept when it still exists.
  refreshOptions(narrow) {
    if (!this.select) return;
    const chosen = this.select.value;
    this.select.replaceChildren(...this.options(narrow));
    this.select.value = chosen;
    if (this.select.value !== chosen) this.showTopic();
  }

  setNarrow(narrow) {
    this.select = el("select", { id: "compose-to", name: "to" }, this.options(narrow));
    this.topic = el("input", {
      id: "compose-topic",
      name: "topic",
      placeholder: "Topic",
      maxlength: 60,
      "aria-label": "Topic",
    });
    this.textarea = el("textarea", {
      id: "compose-content",
      name: "content",
      rows: 2,
      placeholder: "Message (Enter sends, Shift+Enter for a new line)",
      "aria-label": "Message",
    });
    this.textarea.addEventListener("input", () => {
      this.actions.onTyping(this.textarea.value.trim() && this.select.value ? this.target() : null);
      this.drafts.save(this.draftAt, this.textarea.value);
    });
    this.textarea.addEventListener("keydown", (event) => {
      if (this.actions.onKey?.(event)) return; // autocomplete, Ctrl+Enter, Enter-sends off
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.send();
      }
    });
    this.select.addEventListener("change", () => {
      this.showTopic();
      this.retarget();
    });
    this.topic.addEventListener("input", () => this.retarget());
    if (narrow.kind === "channel") {
      this.select.value = `s:${narrow.streamId}`;
      this.topic.value = narrow.topic ?? "";
    } else if (narrow.kind === "dm") {
      this.select.value = `d:${narrow.userIds.join(",")}`;
    }
    this.form.replaceChildren(
      el("div", { class: "compose-recipient" }, [
        el("label", { for: "compose-to", class: "visually-hidden", text: "To" }),
        this.select,
        this.topic,
      ]),
      el("div", { class: "compose-row" }, [
        this.textarea,
        el("button", { type: "submit", class: "send", text: "Send" }),
      ]),
    );
    this.showTopic();
    this.loadDraft();
    this.actions.onDrawn?.(this);
  }

  // Drafts are kept per conversation (channel + topic, or the DM's people) in this browser.
  draftKey() {
    const t = this.target();
    return t.type === "stream" ? `s:${t.streamId}:${t.topic.toLowerCase()}` : `d:${t.userIds.join(",")}`;
  }

  loadDraft() {
    if (!this.select.value) return;
    this.draftAt = this.draftKey();
    this.textarea.value = this.drafts.load(this.draftAt);
  }

  // The person changed the recipient while writing: the text moves with them.
  retarget() {
    const key = this.draftKey();
    if (key === this.draftAt) return;
    this.drafts.save(this.draftAt, "");
    this.drafts.save(key, this.textarea.value);
    this.draftAt = key;
  }

  showTopic() {
    this.topic.hidden = !this.select.value.startsWith("s:");
  }

  target() {
    const [kind, ids] = this.select.value.split(":");
    if (kind === "s") return { type: "stream", streamId: Number(ids), topic: this.topic.value.trim() };
    return { type: "private", userIds: ids.split(",").map(Number).sort((a, b) => a - b) };
  }

  send() {
    const content = this.textarea.value;
    if (!content.trim() || !this.select.value) return;
    const echo = new Echo(this, this.target(), content);
    this.echoes.push(echo);
    this.drafts.save(this.draftAt, "");
    this.textarea.value = "";
    this.actions.onTyping(null);
    this.deliver(echo);
  }

  async deliver(echo) {
    echo.error = null;
    this.actions.onEchoes(this.echoes);
    const t = echo.target;
    const params =
      t.type === "stream"
        ? { type: "stream", to: t.streamId, topic: t.topic, content: echo.content }
        : { type: "direct", to: t.userIds, content: echo.content };
    try {
      const body = await post("/messages", {
        ...params,
        queue_id: this.state.queueId,
        local_id: echo.localId,
      });
      echo.messageId = body.id;
      if (this.delivered?.has(body.id)) this.drop(echo);
    } catch (error) {
      echo.error = error.message;
      this.actions.onEchoes(this.echoes);
    }
  }

  drop(echo) {
    this.echoes = this.echoes.filter((other) => other !== echo);
    this.actions.onEchoes(this.echoes);
  }

  // A message event: the server's copy of a local echo replaces it.
  onMessage(event) {
    this.delivered = this.delivered || new Set();
    this.delivered.add(event.message.id);
    const echo = this.echoes.find(
      (e) => e.localId === event.local_message_id || e.messageId === event.message.id,
    );
    if (echo) this.drop(echo);
  }
}
