// The compose box: a channel and topic, or direct message recipients, and the message.
// Enter sends, Shift+Enter starts a new line. A sent message shows at once as a local echo
// that the server's message event replaces, or that stays visibly failed with Retry/Discard.

import { post } from "../api.js";
import { el } from "../dom.js";
import { sameIds } from "../narrow.js";
import { Recipient } from "./compose_recipient.js";

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

  // Channels or people changed: new choices, the current one kept when it still exists.
  refreshOptions() {
    this.recipient?.refresh();
  }

  setNarrow(narrow) {
    this.recipient = new Recipient(this.state, () => this.retarget());
    this.recipient.setNarrow(narrow);
    this.select = this.recipient.select; // compose_tools reads where the message goes here
    this.topic = this.recipient.topic;
    this.textarea = el("textarea", {
      id: "compose-content",
      name: "content",
      rows: 2,
      placeholder: "Message (Enter sends, Shift+Enter for a new line)",
      "aria-label": "Message",
      "aria-describedby": "compose-count",
    });
    this.counter = el("span", { id: "compose-count", class: "compose-count", "aria-live": "polite" });
    this.status = el("p", { id: "compose-status", class: "compose-status", role: "alert" });
    this.sendButton = el("button", { type: "submit", class: "send", text: "Send" });
    this.textarea.addEventListener("input", () => {
      this.actions.onTyping(this.textarea.value.trim() && this.recipient.ready() ? this.target() : null);
      this.drafts.save(this.draftAt, this.textarea.value);
      this.showLength();
    });
    this.textarea.addEventListener("keydown", (event) => {
      if (this.actions.onKey?.(event)) return; // autocomplete, Ctrl+Enter, Enter-sends off
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.send();
      }
    });
    this.form.replaceChildren(
      this.recipient.node,
      el("div", { class: "compose-row" }, [this.textarea, this.sendButton]),
      el("div", { class: "compose-notes" }, [this.status, this.counter]),
    );
    this.loadDraft();
    this.showLength();
    this.actions.onDrawn?.(this);
  }

  // A new direct message (Zulip's `x`): the people field, empty, focused.
  startDirect() {
    this.recipient.startDirect([]);
    this.recipient.dmInput.focus();
  }

  // Drafts are kept per conversation (channel + topic, or the DM's people) in this browser.
  draftKey() {
    const t = this.target();
    return t.type === "stream" ? `s:${t.streamId}:${t.topic.toLowerCase()}` : `d:${t.userIds.join(",")}`;
  }

  loadDraft() {
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

  target() {
    return this.recipient.target();
  }

  // Zulip's limit on a message's length (max_message_length): a counter as it nears, and a
  // refusal past it, with nothing sent and nothing cleared.
  length() {
    const text = this.textarea.value.trimEnd().replace(/^\n+/, ""); // what the server counts
    return text.length > this.maxLength() * 0.9 ? [...text].length : text.length;
  }

  maxLength() {
    return this.state.maxMessageLength || 10000;
  }

  showLength() {
    const used = this.length();
    const max = this.maxLength();
    const over = used > max;
    this.counter.hidden = used < max * 0.9;
    this.counter.textContent = `${used.toLocaleString()}/${max.toLocaleString()}`;
    this.counter.classList.toggle("over", over);
    this.textarea.toggleAttribute("aria-invalid", over);
    this.sendButton.setAttribute("aria-disabled", String(over));
    if (!over && this.status.dataset.kind === "length") this.say("");
  }

  say(text, kind = "") {
    this.status.textContent = text;
    this.status.dataset.kind = kind;
  }

  send() {
    const content = this.textarea.value;
    if (!content.trim()) return;
    if (!this.recipient.ready()) {
      this.say("Please specify at least one valid recipient.");
      this.recipient.dmInput.focus();
      return;
    }
    if (this.length() > this.maxLength()) {
      // zulip-compat: the web app's words for a message over the limit.
      this.say(`Message length shouldn't be greater than ${this.maxLength()} characters.`, "length");
      this.textarea.focus();
      return;
    }
    this.say("");
    const echo = new Echo(this, this.target(), content);
    echo.draftAt = this.draftAt;
    this.echoes.push(echo);
    this.drafts.save(this.draftAt, "");
    this.textarea.value = "";
    this.showLength();
    this.actions.onTyping(null);
    this.deliver(echo);
  }

  // The server refused the message: its text goes back into the compose box when the box is
  // still empty at that conversation (else it stays as a failed echo with Retry).
  restore(echo, error) {
    if (this.textarea.value || this.draftAt !== echo.draftAt) return false;
    this.textarea.value = echo.content;
    this.drafts.save(this.draftAt, echo.content);
    this.showLength();
    this.say(`Not sent: ${error.message}`);
    this.drop(echo);
    return true;
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
      else this.actions.onEchoes(this.echoes);
    } catch (error) {
      // An answer from the server (not a lost network): the text comes back to be fixed.
      if (error.status && this.restore(echo, error)) return;
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
