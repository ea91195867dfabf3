// Settings: the person's name, and the way to their API key and zuliprc (for other clients).

import { patch } from "../api.js";
import { el } from "../dom.js";
import { askForNotifications, notificationsAllowed, notificationsSupported } from "./notify.js";

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

export function openSettings(dialog, state) {
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
    el("form", { onsubmit: save }, [
      el("label", { for: "settings-full-name", text: "Full name" }),
      name,
      el("div", { class: "row" }, [el("button", { type: "submit", class: "primary", text: "Save" })]),
      result,
    ]),
    notificationsRow(),
    el("p", {}, [
      el("a", { href: "/accounts/api_key/", id: "api-key-link", text: "Your API key and zuliprc" }),
      el("span", { text: " (for the terminal, mobile and bot clients)" }),
    ]),
    el("div", { class: "row" }, [
      el("button", { type: "button", text: "Close", onclick: () => dialog.close() }),
    ]),
  );
  dialog.showModal();
}
