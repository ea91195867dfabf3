// The Organization area: a dialog with one tab per administration page, opened from the top
// bar by administrators only (the server refuses everyone else anyway). Its pages follow the
// events that change what they show, in every open client.

import { el } from "../dom.js";
import { OrgModel, isAdmin } from "../org.js";
import { ChannelsSection } from "./org_channels.js";
import { InvitesSection } from "./org_invites.js";
import { EmojiSection, LinkifiersSection, ProfileSection } from "./org_profile.js";
import { UsersSection } from "./org_users.js";

const TABS = [
  ["invites", "Invitations", InvitesSection],
  ["users", "Users", UsersSection],
  ["channels", "Channels", ChannelsSection],
  ["profile", "Organization profile", ProfileSection],
  ["emoji", "Custom emoji", EmojiSection],
  ["linkifiers", "Linkifiers", LinkifiersSection],
];

export class OrgArea {
  constructor() {
    this.model = null;
    this.sections = new Map();
    this.current = "invites";
    this.dialog = el("dialog", { id: "organization", class: "org", "aria-labelledby": "org-title" });
    document.body.append(this.dialog);
    this.button = el("button", {
      type: "button",
      id: "org-button",
      class: "link-button",
      "aria-label": "Organization",
      onclick: () => this.open(),
    });
    // A phone's top bar has room for the short name only.
    this.button.append(
      el("span", { class: "org-long", text: "Organization" }),
      el("span", { class: "org-short", text: "Org" }),
    );
    this.button.hidden = true;
    document.getElementById("settings-button")?.before(this.button);
  }

  // A (new) registration: start over from its state.
  load(registered) {
    this.model = new OrgModel(registered);
    this.sections.clear();
    if (this.dialog.open) this.draw();
    this.showButton();
  }

  showButton() {
    const admin = isAdmin(this.model.me);
    this.button.hidden = !admin;
    if (!admin && this.dialog.open) this.dialog.close();
  }

  open(tab = this.current) {
    this.current = tab;
    this.draw();
    if (!this.dialog.open) this.dialog.showModal();
  }

  section(name) {
    if (!this.sections.has(name)) {
      const [, , Section] = TABS.find(([id]) => id === name);
      this.sections.set(name, new Section(this.model));
    }
    return this.sections.get(name);
  }

  draw() {
    const tabs = TABS.map(([id, label]) =>
      el("button", {
        type: "button",
        role: "tab",
        id: `org-tab-${id}`,
        "aria-selected": String(id === this.current),
        "aria-controls": "org-panel",
        class: id === this.current ? "current" : "",
        text: label,
        onclick: () => this.open(id),
      }),
    );
    const section = this.section(this.current);
    const tabId = `org-tab-${this.current}`;
    section.refresh();
    this.dialog.replaceChildren(
      el("div", { class: "org-head" }, [
        el("h2", { id: "org-title", text: `Organization: ${this.model.realm.name}` }),
        el("button", {
          type: "button",
          class: "org-close",
          text: "Close",
          onclick: () => this.dialog.close(),
        }),
      ]),
      el("div", { class: "org-tabs", role: "tablist", "aria-label": "Administration pages" }, tabs),
      el("div", { id: "org-panel", class: "org-panel", role: "tabpanel", "aria-labelledby": tabId }, [
        section.node,
      ]),
    );
  }

  // Apply events to what the area knows; draw again the open page they change.
  apply(events) {
    if (!this.model) return;
    const changed = new Set();
    for (const event of events) {
      const section = this.model.apply(event);
      if (section) changed.add(section);
      if (event.type === "realm_user" && event.person?.user_id === this.model.myId) this.showButton();
    }
    if (changed.has("profile")) {
      const name = document.querySelector(".topbar .realm-name");
      if (name) name.textContent = this.model.realm.name;
      const title = this.dialog.querySelector("#org-title");
      if (title) title.textContent = `Organization: ${this.model.realm.name}`;
    }
    // Channel lists appear in the invitation form too.
    if (changed.has("channels")) changed.add("invites");
    if (!this.dialog.open) return;
    for (const name of changed) {
      if (name === this.current) this.section(name).refresh();
    }
  }
}
