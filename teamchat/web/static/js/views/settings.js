// Settings, one dialog in sections: profile (name, avatar), status, account (password, the
// way to the API key and zuliprc for other clients), display (theme, time zone),
// notifications, and the way to the Integrations page (views/integrations.js). Changes come
// back as events; refreshSettings shows them while it is open.

import { patch } from "../api.js";
import { el } from "../dom.js";
import { askForNotifications, notificationsAllowed, notificationsSupported } from "./notify.js";
import { avatarSection, passwordSection, refreshAvatar } from "./settings_account.js";
import { displaySection, notificationTable, refreshSettingControls } from "./settings_display.js";
import { refreshStatusSection, statusSection } from "./user_status.js";

function section(id, title, children) {
  return el("section", { id: `settings-${id}`, "aria-labelledby": `settings-${id}-title` }, [
    el("h3", { id: `settings-${id}-title`, text: title }),
    ...children,
  ]);
}

function sectionNav(dialog, me) {
  const sections = [
    ["profile", "Profile"],
    ["status", "Status"],
    ["account", "Account"],
    ["display", "Display"],
    ["notifications", "Notifications"],
    ["integrations", "Integrations"],
  ].filter(([id]) => id !== "integrations" || me?.role !== 600); // guests have no bots
  return el(
    "nav",
    { class: "settings-nav", "aria-label": "Settings sections" },
    sections.map(([id, words]) =>
      el("button", {
        type: "button",
        text: words,
        onclick: () => dialog.querySelector(`#settings-${id}`).scrollIntoView({ block: "start" }),
      }),
    ),
  );
}

function notificationsRow() {
  const status = el("span", { "aria-live": "polite" });
  const show = () => {
    if (!notificationsSupported()) status.textContent = "This browser has no desktop notifications.";
    else if (notificationsAllowed()) status.textContent = "Desktop notifications are on.";
    else if (Notification.permission === "denied") {
      status.textContent = "Desktop notifications are blocked in the browser's site settings.";
    } else status.textContent = "";
  };
  show();
  const button = el("button", {
    type: "button",
    text: "Enable desktop notifications",
    onclick: () => askForNotifications().then(show),
  });
  const needed = notificationsSupported() && Notification.permission === "default";
  return el("div", { class: "row notifications" }, [needed ? button : null, status]);
}

function integrationsSection() {
  return section("integrations", "Integrations", [
    el("p", { text: "Tools such as GitHub, GitLab or Sentry can post to a channel through a bot of yours." }),
    el("div", { class: "row" }, [
      el("button", { type: "button", dataset: { action: "integrations" }, text: "Connect an integration" }),
    ]),
  ]);
}

export function openSettings(dialog, state, info) {
  const me = state.users.get(state.myId);
  const name = el("input", { id: "settings-full-name", name: "full_name", required: true });
  name.value = me?.full_name ?? "";
  const result = el("p", { class: "result", role: "status" });
  const save = async (event) => {
    event.preventDefault();
    result.className = "result";
    result.textContent = "Saving…";
    try {
      await patch("/settings", { full_name: name.value });
      result.textContent = "Saved.";
    } catch (error) {
      result.className = "result failed";
      result.textContent = error.message;
    }
  };
  dialog.replaceChildren(
    el("h2", { id: "settings-title", text: "Settings" }),
    sectionNav(dialog, me),
    el("div", { class: "settings-body" }, [
      section("profile", "Profile", [
        el("form", { onsubmit: save }, [
          el("label", { for: "settings-full-name", text: "Full name" }),
          name,
          el("div", { class: "row" }, [el("button", { type: "submit", class: "primary", text: "Save" })]),
          result,
        ]),
        avatarSection(state),
      ]),
      statusSection(state, info),
      section("account", "Account", [
        passwordSection(),
        el("p", {}, [
          el("a", { href: "/accounts/api_key/", id: "api-key-link", text: "Your API key and zuliprc" }),
          el("span", { text: " (for the terminal, mobile and bot clients)" }),
        ]),
      ]),
      section("display", "Display", [displaySection(info)]),
      section("notifications", "Notifications", [notificationsRow(), notificationTable(info)]),
      // Guests may not have bots (the server refuses them), so they are not offered any.
      me?.role === 600 ? null : integrationsSection(),
    ]),
    el("div", { class: "row" }, [
      el("button", { type: "button", text: "Close", onclick: () => dialog.close() }),
    ]),
  );
  dialog.showModal();
}

// Events changed settings, status or this person: show it in the open dialog.
export function refreshSettings(dialog, state, info) {
  if (!dialog.open) return;
  refreshSettingControls(dialog, info);
  refreshStatusSection(dialog, state, info);
  refreshAvatar(dialog, state);
}
