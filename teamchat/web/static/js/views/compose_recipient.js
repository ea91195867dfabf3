// The compose box's one recipient control, as in Zulip's compose box: a picker of where the
// message goes (one of your channels, or "Direct message"), then the topic for a channel, or
// the people of a direct message (removable names, and a field that finds more by name).

import { recipientItems } from "../autocomplete.js";
import { el } from "../dom.js";
import { Typeahead } from "./typeahead.js";

export const DIRECT = "dm";

export class Recipient {
  // state: the client's State; onChange(): the recipient changed (channel, topic, a person).
  constructor(state, onChange) {
    this.state = state;
    this.onChange = onChange;
    this.dmIds = [];
    this.select = el("select", { id: "compose-to", name: "to", "aria-label": "Send to" }, this.options());
    this.topic = el("input", {
      id: "compose-topic",
      name: "topic",
      placeholder: "Topic",
      maxlength: 60,
      "aria-label": "Topic",
    });
    this.dmInput = el("input", {
      id: "compose-dm",
      placeholder: "Add a person…",
      "aria-label": "Direct message recipients",
      autocomplete: "off",
    });
    this.pills = el("span", { class: "dm-pills" });
    this.dmBox = el("div", { class: "compose-dm" }, [this.pills, this.dmInput]);
    this.dmBox.addEventListener("click", (event) => {
      if (event.target === this.dmBox || event.target === this.pills) this.dmInput.focus();
    });
    this.select.addEventListener("change", () => {
      this.show();
      this.onChange();
    });
    this.topic.addEventListener("input", () => this.onChange());
    this.node = el("div", { class: "compose-recipient" }, [
      this.select,
      el("span", { class: "compose-sep", "aria-hidden": "true", text: "›" }),
      this.topic,
      this.dmBox,
    ]);
    // The suggestions list lives in this node (placed by the compose box, like the others).
    this.ahead = new Typeahead(this.dmInput, this.node, (text) => this.suggest(text));
    this.dmInput.addEventListener("keydown", (event) => this.dmKey(event));
  }

  options() {
    const channels = this.state.sortedChannels().map((sub) =>
      el("option", { value: `s:${sub.stream_id}`, text: `# ${sub.name}` }),
    );
    return [
      el("option", { value: DIRECT, text: "Direct message" }),
      el("optgroup", { label: "Channels" }, channels),
    ];
  }

  // Channels changed: new choices, the current one kept when it still exists.
  refresh() {
    const chosen = this.select.value;
    this.select.replaceChildren(...this.options());
    this.select.value = chosen;
    if (this.select.value !== chosen) {
      this.select.value = this.firstChannel();
      this.show();
    }
    this.drawPills();
  }

  firstChannel() {
    const first = this.state.sortedChannels()[0];
    return first ? `s:${first.stream_id}` : DIRECT;
  }

  // Where a narrow's messages go: its channel and topic, its people; else the first channel.
  setNarrow(narrow) {
    this.dmIds = [];
    if (narrow.kind === "channel") {
      this.select.value = `s:${narrow.streamId}`;
      this.topic.value = narrow.topic ?? "";
    } else if (narrow.kind === "dm") {
      this.select.value = DIRECT;
      this.dmIds = [...narrow.userIds];
    } else this.select.value = this.firstChannel();
    if (!this.select.value) this.select.value = this.firstChannel();
    this.drawPills();
    this.show();
  }

  // A new direct message to `userIds` (none: the field waits for names).
  startDirect(userIds = []) {
    this.select.value = DIRECT;
    this.dmIds = [...userIds];
    this.drawPills();
    this.show();
    this.onChange();
  }

  isDirect() {
    return this.select.value === DIRECT;
  }

  // Whether a message could go somewhere: a channel, or at least one person.
  ready() {
    return this.select.value.startsWith("s:") || (this.isDirect() && this.dmIds.length > 0);
  }

  target() {
    if (this.isDirect()) return { type: "private", userIds: [...this.dmIds].sort((a, b) => a - b) };
    return { type: "stream", streamId: Number(this.select.value.slice(2)), topic: this.topic.value.trim() };
  }

  show() {
    const direct = this.isDirect();
    this.topic.hidden = direct;
    this.node.querySelector(".compose-sep").hidden = direct;
    this.dmBox.hidden = !direct;
  }

  drawPills() {
    this.pills.replaceChildren(
      ...this.dmIds.map((id) => {
        const name = this.state.userName(id);
        return el("span", { class: "dm-pill" }, [
          el("span", { text: name }),
          el("button", {
            type: "button",
            class: "dm-pill-remove",
            "aria-label": `Remove ${name}`,
            text: "×",
            onclick: () => this.remove(id),
          }),
        ]);
      }),
    );
    this.dmInput.placeholder = this.dmIds.length ? "Add another…" : "Add a person…";
  }

  add(id) {
    if (!this.dmIds.includes(id)) this.dmIds.push(id);
    this.drawPills();
    this.onChange();
  }

  remove(id) {
    this.dmIds = this.dmIds.filter((other) => other !== id);
    this.drawPills();
    this.onChange();
    this.dmInput.focus();
  }

  dmKey(event) {
    if (this.ahead.keydown(event)) return;
    // Enter here picks a person; it never sends the message.
    if (event.key === "Enter") event.preventDefault();
    else if (event.key === "Backspace" && !this.dmInput.value && this.dmIds.length) {
      event.preventDefault();
      this.remove(this.dmIds[this.dmIds.length - 1]);
    }
  }

  suggest(text) {
    if (!text.trim()) return null;
    const users = [...this.state.users.values()].filter(
      (user) => user.user_id !== this.state.myId && !this.dmIds.includes(user.user_id),
    );
    const pick = (item) => {
      this.add(Number(item.value.slice(2)));
      this.dmInput.value = "";
      this.dmInput.focus();
    };
    return { items: recipientItems(text, [], users), pick };
  }
}
