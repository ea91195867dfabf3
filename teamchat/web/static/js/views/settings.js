// Settings: the person's name, and the way to their API key and zuliprc (for other clients).

import { patch } from "../api.js";
import { el } from "../dom.js";

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
