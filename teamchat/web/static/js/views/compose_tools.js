// The compose box's helpers around the message field: autocomplete (`@` people, groups and
// wildcards, `#` channels and `#**channel>` topics, `:` emoji; the topic field's known topics),
// file uploads (button, paste, drop), a preview rendered by the server, and the Enter-sends
// switch (the user setting `enter_sends`, kept current by user_settings events).

import { get, patch, post } from "../api.js";
import {
  applyChoice,
  channelItems,
  emojiItems,
  findToken,
  inGroupSetting,
  mentionItems,
  topicChoices,
  topicItems,
  WILDCARD_MENTION_THRESHOLD,
} from "../autocomplete.js";
import { el } from "../dom.js";
import { Typeahead } from "./typeahead.js";
import { Uploads } from "./uploads.js";

export class ComposeTools {
  constructor() {
    this.codeToNames = null; // the server's Unicode emoji names, fetched on the first `:`
  }

  // What /register says (again after a lost queue).
  load(registered, state) {
    this.state = state;
    this.groups = new Map((registered.realm_user_groups || []).map((group) => [group.id, group]));
    this.realmEmoji = registered.realm_emoji || {};
    this.enterSends = Boolean(registered.user_settings?.enter_sends ?? registered.enter_sends);
    this.maxMib = registered.max_file_upload_size_mib;
    this.emojiDataUrl = registered.server_emoji_data_url;
    this.mentionManySetting = registered.realm_can_mention_many_users_group;
    this.showEnterSends();
    if (this.uploads) this.uploads.maxMib = this.maxMib;
  }

  apply(event) {
    if (event.type === "user_settings" && event.op === "update" && event.property === "enter_sends") {
      this.enterSends = Boolean(event.value);
      this.showEnterSends();
    } else if (event.type === "update_display_settings" && event.setting_name === "enter_sends") {
      this.enterSends = Boolean(event.setting);
      this.showEnterSends();
    } else if (event.type === "realm" && event.op === "update_dict" && "can_mention_many_users_group" in (event.data || {})) {
      this.mentionManySetting = event.data.can_mention_many_users_group;
    } else if (event.type === "realm_emoji" && event.op === "update") {
      this.realmEmoji = event.realm_emoji;
    } else if (event.type === "user_group") {
      if (event.op === "add") this.groups.set(event.group.id, event.group);
      else if (event.op === "remove") this.groups.delete(event.group_id);
      else if (event.op === "update" && this.groups.has(event.group_id)) {
        Object.assign(this.groups.get(event.group_id), event.data);
      }
    }
  }

  // The compose box was drawn (again): add the tools to its new fields.
  attach(compose) {
    this.compose = compose;
    const form = compose.form;
    const textarea = compose.textarea;
    this.messageAhead = new Typeahead(textarea, form, (text, caret) => this.suggest(text, caret));
    this.topicAhead = new Typeahead(compose.topic, form, (text) => this.suggestTopic(text));
    compose.topic.addEventListener("keydown", (event) => this.topicAhead.keydown(event));
    compose.topic.addEventListener("focus", () => this.topicAhead.update());

    if (this.wiredForm !== form) this.wire(form);
    const picker = el("input", { type: "file", multiple: true, class: "visually-hidden", tabindex: -1, id: "compose-file", "aria-label": "Files to attach" });
    picker.addEventListener("change", () => {
      this.uploads.add([...picker.files]);
      picker.value = "";
      compose.textarea.focus();
    });
    this.preview = el("div", { class: "compose-preview content", id: "compose-preview", "aria-live": "polite" });
    this.preview.hidden = true;
    this.previewButton = el("button", {
      type: "button",
      class: "compose-tool",
      text: "Preview",
      "aria-pressed": "false",
      onclick: () => this.togglePreview(),
    });
    this.enterBox = el("input", { type: "checkbox", id: "compose-enter-sends" });
    this.enterBox.addEventListener("change", () => this.setEnterSends(this.enterBox.checked));
    textarea.before(this.preview);
    form.append(
      this.uploads.host,
      this.errors,
      el("div", { class: "compose-tools" }, [
        el("button", {
          type: "button",
          class: "compose-tool",
          text: "Attach files",
          "aria-controls": "compose-file",
          onclick: () => picker.click(),
        }),
        picker,
        this.previewButton,
        el("span", { class: "spacer" }),
        el("label", { class: "compose-enter", for: "compose-enter-sends" }, [
          this.enterBox,
          el("span", { text: "Enter sends" }),
        ]),
      ]),
    );
    textarea.addEventListener("paste", (event) => {
      const files = [...(event.clipboardData?.files || [])];
      if (!files.length) return;
      event.preventDefault();
      this.uploads.add(files);
    });
    this.showEnterSends();
  }

  // The form itself stays while its fields are drawn again: its listeners are added once, and
  // uploads in progress and problems stay shown.
  wire(form) {
    this.wiredForm = form;
    this.errors = el("p", { class: "compose-errors", role: "alert" });
    const uploadRows = el("div", { class: "compose-uploads", "aria-live": "polite" });
    this.uploads = new Uploads(uploadRows, this.errors, () => this.compose.textarea, this.maxMib);
    form.addEventListener("dragover", (event) => {
      if (![...(event.dataTransfer?.types || [])].includes("Files")) return;
      event.preventDefault();
      form.classList.add("dropping");
    });
    form.addEventListener("dragleave", () => form.classList.remove("dropping"));
    form.addEventListener("drop", (event) => {
      form.classList.remove("dropping");
      const files = [...(event.dataTransfer?.files || [])];
      if (!files.length) return;
      event.preventDefault();
      this.uploads.add(files);
    });
    form.addEventListener("submit", () => {
      this.showEditor();
      this.errors.textContent = "";
    });
  }

  // A key in the message field: true when it was used here (the compose box does nothing more).
  keydown(event) {
    if (this.messageAhead?.keydown(event)) return true;
    if (event.key !== "Enter" || event.isComposing || event.shiftKey || event.altKey) return false;
    if (event.ctrlKey || event.metaKey) {
      // Ctrl/Cmd+Enter sends whichever way Enter is set.
      event.preventDefault();
      this.compose.send();
      return true;
    }
    return !this.enterSends; // Enter alone: the compose box sends, or the textarea adds a line
  }

  showEnterSends() {
    if (!this.enterBox || !this.compose?.textarea) return;
    this.enterBox.checked = this.enterSends;
    this.compose.textarea.placeholder = this.enterSends
      ? "Message (Enter sends, Shift+Enter for a new line)"
      : "Message (Ctrl+Enter sends, Enter for a new line)";
  }

  async setEnterSends(value) {
    this.enterSends = value;
    this.showEnterSends();
    try {
      await patch("/settings", { enter_sends: value });
    } catch (error) {
      this.errors.textContent = `Could not save the Enter setting: ${error.message}`;
      this.enterSends = !value;
      this.showEnterSends();
    }
  }

  async togglePreview() {
    if (!this.preview.hidden) {
      this.showEditor();
      this.compose.textarea.focus();
      return;
    }
    const content = this.compose.textarea.value;
    this.preview.hidden = false;
    this.compose.textarea.hidden = true;
    this.previewButton.textContent = "Edit";
    this.previewButton.setAttribute("aria-pressed", "true");
    if (!content.trim()) {
      this.preview.textContent = "Nothing to preview.";
      return;
    }
    this.preview.textContent = "Rendering…";
    try {
      const body = await post("/messages/render", { content });
      // The server's sanitized rendering: the one kind of HTML this client inserts.
      if (!this.preview.hidden) this.preview.innerHTML = body.rendered;
    } catch (error) {
      this.preview.textContent = `Could not render the preview: ${error.message}`;
    }
  }

  showEditor() {
    if (!this.preview || this.preview.hidden) return;
    this.preview.hidden = true;
    this.preview.replaceChildren();
    this.compose.textarea.hidden = false;
    this.previewButton.textContent = "Preview";
    this.previewButton.setAttribute("aria-pressed", "false");
  }

  // Suggestions for the token at the caret of the message field.
  async suggest(text, caret) {
    const token = findToken(text, caret);
    if (!token) return null;
    const pick = (item) => {
      const field = this.compose.textarea;
      const chosen = applyChoice(field.value, caret, token, item.insert);
      field.value = chosen.text;
      field.selectionStart = field.selectionEnd = chosen.caret;
      field.dispatchEvent(new Event("input"));
    };
    return { items: await this.items(token), pick };
  }

  async items(token) {
    const state = this.state;
    if (token.kind === "mention") {
      const target = this.compose.select.value;
      // People of recent direct messages come first among equal matches.
      const recentIds = new Map();
      state.sortedDms().forEach((dm, index) => {
        for (const id of dm.userIds) if (!recentIds.has(id)) recentIds.set(id, index);
      });
      const me = state.myId;
      const channel = target.startsWith("s:") ? state.channels.get(Number(target.slice(2))) : null;
      return mentionItems(token.query, token.silent, {
        users: [...state.users.values()],
        // Groups this person may mention (can_mention_group), as Zulip offers them.
        groups: [...this.groups.values()].filter((group) => inGroupSetting(group.can_mention_group, me, this.groups)),
        inChannel: Boolean(channel),
        wildcardsAllowed:
          !channel ||
          (channel.subscriber_count ?? 0) <= WILDCARD_MENTION_THRESHOLD ||
          inGroupSetting(this.mentionManySetting, me, this.groups),
        recentIds,
      });
    }
    if (token.kind === "channel") return channelItems(token.query, state.sortedChannels());
    if (token.kind === "topic") {
      const channel = state.sortedChannels().find((sub) => sub.name.toLowerCase() === token.channel.toLowerCase());
      if (!channel) return [];
      return topicItems(token.query, channel.name, await this.topics(channel.stream_id));
    }
    return emojiItems(token.query, await this.emojiNames(), this.realmEmoji);
  }

  async suggestTopic(text) {
    const [kind, id] = this.compose.select.value.split(":");
    if (kind !== "s") return null;
    const field = this.compose.topic;
    const items = topicChoices(text, await this.topics(Number(id))).filter((item) => item.label !== text);
    const pick = (item) => {
      field.value = item.insert;
      field.dispatchEvent(new Event("input"));
    };
    return { items, pick };
  }

  // A channel's topics, most recent first (fetched once, then kept by events).
  async topics(streamId) {
    if (!this.state.sortedTopics(streamId)) {
      try {
        const body = await get(`/users/me/${streamId}/topics`);
        this.state.setTopics(streamId, body.topics);
      } catch {
        return [];
      }
    }
    return this.state.sortedTopics(streamId) || [];
  }

  async emojiNames() {
    if (this.codeToNames) return this.codeToNames;
    if (!this.emojiLoading) {
      // Same-origin path of server_emoji_data_url (the realm URL's host may be another name).
      const path = this.emojiDataUrl ? new URL(this.emojiDataUrl, location.href).pathname : "/static/emoji/emoji_api.json";
      this.emojiLoading = fetch(path, { credentials: "same-origin" })
        .then((response) => response.json())
        .then((body) => (this.codeToNames = body.code_to_names || {}))
        .catch(() => {
          this.emojiLoading = null;
          return {};
        });
    }
    return this.emojiLoading;
  }
}
