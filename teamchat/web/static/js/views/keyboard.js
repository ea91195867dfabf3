// The keyboard: Zulip's common shortcuts (see keymap.js), the selected message (moved with the
// arrows or j/k, or picked by a click; replies go to it), and the `?` cheat sheet.

import { el } from "../dom.js";
import { SHORTCUTS, keyAction, nextUnreadTopic, stepSelection } from "../keymap.js";
import { conversationOf } from "../message_links.js";
import { channelHash, narrowToHash } from "../narrow.js";
import { keepFocusAcross } from "./a11y.js";

const $ = (id) => document.getElementById(id);

export class Keyboard {
  constructor(app) {
    this.app = app; // the App of main.js: its state, narrow, message list, compose box
    this.selectedId = null;
    this.messages = $("messages");
    this.help = null;
    document.addEventListener("keydown", (event) => this.onKey(event));
    // A click or tap picks a message; so does a long press on a touch screen (its actions
    // then show, see app.css), which leaves the browser's own menu as it is. As in Zulip, a
    // click or tap on a message is a reply: the compose box, when empty, goes to its
    // conversation (not a click on its links, buttons or editor).
    for (const type of ["click", "contextmenu"]) {
      this.messages.addEventListener(type, (event) => {
        const article = event.target.closest("article.message[data-id]");
        if (!article) return;
        this.select(Number(article.dataset.id), false);
        if (type === "click" && !event.target.closest("a, button, input, textarea, select, .edit-box")) {
          this.addressCompose();
        }
      });
    }
    window.addEventListener("hashchange", () => this.select(null));
    // The phone menu, opened: the focus goes into it.
    $("menu-toggle").addEventListener("click", () => {
      if (document.body.classList.contains("menu-open")) $("left").querySelector("a")?.focus();
    });
    this.selectionFocused = false;
    document.addEventListener("focusin", (event) => {
      this.selectionFocused = Boolean(event.target.matches?.("article.message.selected"));
    });
    // The list is drawn again on every change: keep the selection (and focus on it) across.
    // A list pinned to its bottom stays there when the selected message's actions (an extra
    // row on a touch screen) come back.
    new MutationObserver(() => {
      const c = this.messages;
      const pinned = c.scrollHeight - c.scrollTop - c.clientHeight < 40;
      this.showSelection();
      if (pinned) c.scrollTop = c.scrollHeight;
    }).observe(this.messages, { childList: true });
  }

  onKey(event) {
    if (event.defaultPrevented) return; // handled where it happened (an editor, a popover)
    const target = event.target;
    const where = {
      inField: Boolean(target.closest?.("input, textarea, select, [contenteditable]")),
      inDialog: Boolean(document.querySelector("dialog[open]")),
      onControl: Boolean(target.closest?.("a, button, summary")),
    };
    const action = keyAction(event, where);
    if (!action) return;
    if (action !== "escape" && action !== "leave-field") event.preventDefault();
    this.run(action, target);
  }

  run(action, target) {
    const app = this.app;
    switch (action) {
      case "leave-field":
        target.blur();
        return app.toggleMenu(false);
      case "escape":
        if (document.body.classList.contains("menu-open")) {
          app.toggleMenu(false);
          return $("menu-toggle").focus(); // the focus was in the menu, now hidden
        }
        if (this.selectedId !== null) return this.select(null);
        if (app.narrow.kind !== "all") location.hash = narrowToHash({ kind: "all" }, app.lookup());
        return undefined;
      case "search":
        return $("search-input").focus();
      case "compose":
        return this.composeNewTopic();
      case "compose-dm":
        return app.compose.startDirect();
      case "reply":
        return this.reply();
      case "select-previous":
        return this.step(-1);
      case "select-next":
        return this.step(1);
      case "next-unread-topic":
        return this.nextUnread();
      case "help":
        return this.openHelp();
      default:
        return undefined;
    }
  }

  // `c`: the compose box in this topic, or in this channel (the selected message's, else the
  // first) at an empty topic.
  composeNewTopic() {
    const app = this.app;
    if (app.narrow.kind === "channel" && app.narrow.topic !== undefined) {
      app.compose.setNarrow(app.narrow); // in a topic: a message to it
      return $("compose-content").focus();
    }
    const selected = this.selectedMessage();
    const streamId =
      (app.narrow.kind === "channel" && app.narrow.streamId) ||
      (selected?.type === "stream" && selected.stream_id) ||
      app.state.sortedChannels()[0]?.stream_id;
    if (streamId === undefined) return $("compose-content").focus();
    app.compose.setNarrow({ kind: "channel", streamId, topic: "" });
    return $("compose-topic").focus();
  }

  // `r` / Enter: the compose box addressed to the selected message's conversation.
  reply() {
    const message = this.selectedMessage();
    if (message) this.app.compose.setNarrow(conversationOf(message, this.app.state.myId));
    const topic = $("compose-topic");
    if (!message && topic && !topic.hidden && !topic.value) return topic.focus();
    return $("compose-content").focus();
  }

  // The compose box to the selected message's conversation, unless something is written in it
  // (the keyboard stays down on a phone: the focus does not move).
  addressCompose() {
    const message = this.selectedMessage();
    if (!message || $("compose-content")?.value.trim()) return;
    this.app.compose.setNarrow(conversationOf(message, this.app.state.myId));
  }

  nextUnread() {
    const app = this.app;
    const places = [...app.state.unread.byId.entries()].map(([id, place]) => ({ id, ...place }));
    const order = app.state.sortedChannels().map((sub) => sub.stream_id);
    const current = app.narrow.kind === "channel" ? app.narrow : null;
    const next = nextUnreadTopic(places, order, current);
    if (!next) return app.status("There are no unread topics.", false);
    location.hash = channelHash(next.streamId, app.state.streamName(next.streamId), next.topic);
    return undefined;
  }

  // ----- the selected message -----

  ids() {
    return [...this.messages.querySelectorAll("article.message[data-id]")].map((node) => Number(node.dataset.id));
  }

  selectedMessage() {
    return this.app.list?.messages.find((message) => message.id === this.selectedId) ?? null;
  }

  step(delta) {
    const next = stepSelection(this.ids(), this.selectedId, delta);
    if (next !== null) this.select(next, true);
  }

  select(id, focus) {
    this.selectedId = id;
    this.showSelection(focus);
  }

  showSelection(focus = false) {
    for (const node of this.messages.querySelectorAll("article.message.selected")) {
      if (Number(node.dataset.id) === this.selectedId) continue;
      node.classList.remove("selected");
      node.removeAttribute("aria-current");
    }
    if (this.selectedId === null) return;
    const node = this.messages.querySelector(`article.message[data-id="${this.selectedId}"]`);
    if (!node) return;
    node.classList.add("selected");
    node.setAttribute("aria-current", "true");
    node.tabIndex = -1;
    // Focus follows the keys, and stays on the message when the list is drawn again.
    const refocus = this.selectionFocused && document.activeElement === document.body;
    if (focus) node.scrollIntoView({ block: "nearest" });
    if (focus || refocus) node.focus({ preventScroll: true });
  }

  // ----- the cheat sheet -----

  openHelp() {
    if (!this.help) {
      this.help = el("dialog", { id: "shortcuts", class: "shortcuts", "aria-labelledby": "shortcuts-title" });
      document.body.append(this.help);
      keepFocusAcross(this.help);
    }
    const rows = SHORTCUTS.map((shortcut) =>
      el("tr", {}, [
        el(
          "td",
          {},
          shortcut.keys.flatMap((key, index) => [index ? " or " : null, el("kbd", { text: key })]),
        ),
        el("td", { text: shortcut.description }),
      ]),
    );
    this.help.replaceChildren(
      el("h2", { id: "shortcuts-title", text: "Keyboard shortcuts" }),
      el("table", {}, [
        el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: "Key" }), el("th", { scope: "col", text: "Action" })])]),
        el("tbody", {}, rows),
      ]),
      el("div", { class: "row" }, [
        el("button", { type: "button", class: "close", text: "Close", onclick: () => this.help.close() }),
      ]),
    );
    this.help.showModal();
  }
}
