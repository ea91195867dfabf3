// The channel browser: every channel this person may see (public, web-public, the private
// ones they are in), with description and subscriber count, a filter, Subscribe/Unsubscribe,
// and "Create channel" where the organization allows it. A channel's settings page (its
// subscribers, adding and removing them) is views/channel_settings.js. The server decides;
// buttons are offered only where its rules (permissions.js) say they will work.

import { post } from "../api.js";
import { el } from "../dom.js";
import { channelHash } from "../narrow.js";
import { extras } from "../realm_extras.js";
import { ChannelSettings, leaveChannel, privacyLabel, subscribeSelf } from "./channel_settings.js";

const VIEWS = [
  ["all", "All channels"],
  ["subscribed", "Subscribed"],
  ["unsubscribed", "Not subscribed"],
];

export class ChannelBrowser {
  constructor(getState) {
    this.getState = getState;
    this.view = "all";
    this.page = "list"; // "list" | "create" | a stream id (its settings)
    this.filterText = "";
    this.dialog = el("dialog", {
      id: "channels-dialog",
      class: "channels-dialog",
      "aria-labelledby": "channels-title",
    });
    document.body.append(this.dialog);
    this.settings = new ChannelSettings(getState, {
      back: () => this.show("list"),
      narrowTo: (streamId) => this.narrowTo(streamId),
    });
  }

  get state() {
    return this.getState();
  }

  get me() {
    return this.state.users.get(this.state.myId) ?? { role: 400 };
  }

  open(page = "list") {
    this.show(page);
    if (!this.dialog.open) this.dialog.showModal();
    if (page === "list") this.dialog.querySelector("#channel-filter")?.focus();
  }

  show(page) {
    this.page = page;
    this.draw();
  }

  close() {
    if (this.dialog.open) this.dialog.close();
  }

  narrowTo(streamId) {
    location.hash = channelHash(streamId, this.state.streamName(streamId));
    this.close();
  }

  // What the state knows changed (subscriptions, channels, people): draw the open page again.
  refresh() {
    if (!this.dialog.open) return;
    if (typeof this.page === "number" && !this.state.directory.get(this.page)) this.page = "list";
    if (this.page === "create") return; // a form being filled in stays as it is
    if (this.page === "list") this.drawList();
    else this.settings.refresh();
  }

  draw() {
    const title =
      this.page === "create"
        ? "Create a channel"
        : typeof this.page === "number"
          ? `#${this.state.streamName(this.page)}`
          : "Channels";
    const body = el("div", { class: "channels-body" });
    this.dialog.replaceChildren(
      el("div", { class: "channels-head" }, [
        this.page === "list"
          ? null
          : el("button", {
              type: "button",
              class: "channels-back",
              text: "‹ Channels",
              "aria-label": "Back to channels",
              onclick: () => this.show("list"),
            }),
        el("h2", { id: "channels-title", text: title }),
        el("button", { type: "button", class: "channels-close", text: "Close", onclick: () => this.close() }),
      ]),
      body,
    );
    this.body = body;
    if (this.page === "create") body.append(this.createForm());
    else if (this.page === "list") this.drawList();
    else body.append(this.settings.node(this.page));
  }

  drawList() {
    const perms = extras.permissions;
    const canCreate = perms.canCreateChannel(this.me, false) || perms.canCreateChannel(this.me, true);
    const filter = el("input", {
      id: "channel-filter",
      type: "search",
      placeholder: "Filter channels",
      "aria-label": "Filter channels",
      value: this.filterText,
      oninput: () => {
        this.filterText = filter.value;
        list.replaceChildren(...this.rows());
      },
    });
    const tabs = VIEWS.map(([id, label]) =>
      el("button", {
        type: "button",
        role: "tab",
        "aria-selected": String(id === this.view),
        class: id === this.view ? "current" : "",
        text: label,
        onclick: () => {
          this.view = id;
          this.drawList();
        },
      }),
    );
    const list = el("ul", { class: "channel-rows", "aria-label": "Channels" }, this.rows());
    this.body.replaceChildren(
      el("div", { class: "channels-tools" }, [
        el("div", { class: "channels-tabs", role: "tablist", "aria-label": "Which channels" }, tabs),
        filter,
        canCreate
          ? el("button", {
              type: "button",
              class: "primary",
              id: "channel-create",
              text: "Create channel",
              onclick: () => this.show("create"),
            })
          : null,
      ]),
      list,
    );
    if (this.dialog.open && document.activeElement === document.body) filter.focus();
  }

  rows() {
    const directory = this.state.directory;
    const shown = directory.list(this.filterText).filter((stream) => {
      const subscribed = directory.isSubscribed(stream.stream_id);
      return this.view === "all" || (this.view === "subscribed") === subscribed;
    });
    if (!shown.length) {
      const text = this.filterText.trim()
        ? "No channels match this filter."
        : this.view === "subscribed"
          ? "You are not subscribed to any channels."
          : "There are no other channels you can see.";
      return [el("li", { class: "channel-none", text })];
    }
    return shown.map((stream) => this.row(stream));
  }

  row(stream) {
    const directory = this.state.directory;
    const streamId = stream.stream_id;
    const subscribed = directory.isSubscribed(streamId);
    const count = directory.count(streamId);
    const description = el("div", { class: "channel-description rendered" });
    // The server's sanitized rendering of the description.
    description.innerHTML = stream.rendered_description ?? "";
    const result = el("span", { class: "channel-result", role: "status" });
    const perms = extras.permissions;
    let action = null;
    if (subscribed) {
      action = el("button", {
        type: "button",
        text: "Unsubscribe",
        "aria-label": `Unsubscribe from ${stream.name}`,
        onclick: () => leaveChannel(stream, result),
      });
    } else if (perms.canSubscribe(this.me, stream, false)) {
      action = el("button", {
        type: "button",
        class: "primary",
        text: "Subscribe",
        "aria-label": `Subscribe to ${stream.name}`,
        onclick: () => subscribeSelf(stream, result),
      });
    }
    return el("li", { class: `channel-row${subscribed ? " subscribed" : ""}`, dataset: { streamId } }, [
      el("div", { class: "channel-main" }, [
        el("a", { class: "channel-name", href: channelHash(streamId, stream.name), onclick: () => this.close() }, [
          el("span", { text: `# ${stream.name}` }),
        ]),
        el("span", { class: "channel-privacy", text: privacyLabel(stream) }),
        el("span", {
          class: "channel-count",
          text: `${count} ${count === 1 ? "subscriber" : "subscribers"}`,
        }),
        description,
      ]),
      el("div", { class: "channel-actions" }, [
        action,
        el("button", {
          type: "button",
          text: "Settings",
          "aria-label": `Settings of ${stream.name}`,
          onclick: () => this.show(streamId),
        }),
        result,
      ]),
    ]);
  }

  createForm() {
    const perms = extras.permissions;
    const choices = [
      ["public", "Public: anyone in the organization can join", perms.canCreateChannel(this.me, false)],
      ["private", "Private: only people added can see it", perms.canCreateChannel(this.me, true)],
    ].filter(([, , allowed]) => allowed);
    const name = el("input", { id: "channel-create-name", required: true, maxlength: "60", autocomplete: "off" });
    const description = el("input", { id: "channel-create-description", maxlength: "1024" });
    const privacy = el(
      "select",
      { id: "channel-create-privacy" },
      choices.map(([value, label]) => el("option", { value, text: label })),
    );
    const result = el("p", { class: "channels-result", role: "status", "aria-live": "polite" });
    const create = async (event) => {
      event.preventDefault();
      result.className = "channels-result";
      result.textContent = "Creating…";
      const wanted = name.value.trim();
      try {
        await post("/channels/create", {
          name: wanted,
          description: description.value,
          subscribers: [this.state.myId],
          invite_only: privacy.value === "private",
        });
      } catch (error) {
        result.className = "channels-result failed";
        result.textContent = error.message;
        return;
      }
      result.textContent = "Channel created.";
      this.createdName = wanted;
      this.openWhenKnown();
    };
    const field = (label, input) =>
      el("div", { class: "channels-field" }, [el("label", { for: input.id, text: label }), input]);
    const form = el("form", { class: "channels-form", onsubmit: create }, [
      field("Channel name", name),
      field("Description", description),
      field("Who can see it", privacy),
      el("div", { class: "channels-row" }, [
        el("button", { type: "submit", class: "primary", text: "Create" }),
        el("button", { type: "button", text: "Cancel", onclick: () => this.show("list") }),
      ]),
      result,
    ]);
    setTimeout(() => name.focus());
    return form;
  }

  // After creating: go to the new channel once its subscription event has arrived.
  openWhenKnown(tries = 50) {
    const stream = this.state.directory.byName(this.createdName);
    if (stream && this.state.directory.isSubscribed(stream.stream_id)) {
      this.page = "list";
      this.narrowTo(stream.stream_id);
    } else if (tries > 0) setTimeout(() => this.openWhenKnown(tries - 1), 100);
  }
}
