// Settings: one's avatar (POST/DELETE /users/me/avatar) and password (PATCH /settings with
// old_password and new_password; the server keeps this browser's session and ends the others).

import { ApiError, NetworkError, csrfToken, del, patch } from "../api.js";
import { el } from "../dom.js";
import { ownAvatarUrl, userAvatar } from "./user_avatar.js";

function resultLine() {
  return el("p", { class: "result", "aria-live": "polite" });
}

async function run(result, busyText, doneText, action) {
  result.className = "result";
  result.textContent = busyText;
  try {
    await action();
    result.textContent = doneText;
    return true;
  } catch (error) {
    result.className = "result failed";
    result.textContent = error.message;
    return false;
  }
}

// A multipart upload under /json (api.js sends forms only).
async function uploadAvatar(file) {
  const form = new FormData();
  form.append("file", file, file.name);
  let response;
  try {
    response = await fetch("/json/users/me/avatar", {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() },
      body: form,
    });
  } catch (error) {
    throw new NetworkError(error.message);
  }
  const body = await response.json().catch(() => ({ msg: `HTTP ${response.status}` }));
  if (!response.ok || body.result !== "success") throw new ApiError(response.status, body);
}

export function avatarSection(state) {
  const me = state.users.get(state.myId);
  const preview = el("div", { class: "avatar-preview", dataset: { refresh: "avatar" } }, [userAvatar(me)]);
  const result = resultLine();
  const file = el("input", { id: "avatar-file", type: "file", accept: "image/*", class: "file" });
  file.addEventListener("change", () => {
    if (file.files.length) run(result, "Uploading…", "Avatar uploaded.", () => uploadAvatar(file.files[0]));
    file.value = "";
  });
  const remove = el("button", {
    type: "button",
    id: "avatar-delete",
    text: "Delete avatar",
    hidden: !ownAvatarUrl(me),
    onclick: () => run(result, "Deleting…", "Avatar deleted.", () => del("/users/me/avatar")),
  });
  return el("div", { class: "avatar-setting" }, [
    preview,
    el("div", {}, [
      el("label", { for: "avatar-file", text: "Upload avatar" }),
      file,
      el("div", { class: "row" }, [remove]),
      result,
    ]),
  ]);
}

export function refreshAvatar(dialog, state) {
  const preview = dialog.querySelector("[data-refresh=avatar]");
  if (!preview) return;
  const me = state.users.get(state.myId);
  preview.replaceChildren(userAvatar(me));
  dialog.querySelector("#avatar-delete").hidden = !ownAvatarUrl(me);
}

export function passwordSection() {
  const old = el("input", { id: "old-password", type: "password", autocomplete: "current-password", required: true });
  const fresh = el("input", { id: "new-password", type: "password", autocomplete: "new-password", required: true });
  const result = resultLine();
  const submit = async (event) => {
    event.preventDefault();
    const changed = await run(result, "Changing…", "Password changed.", () =>
      patch("/settings", { old_password: old.value, new_password: fresh.value }),
    );
    if (changed) event.target.reset();
  };
  return el("form", { class: "password", onsubmit: submit }, [
    el("label", { for: "old-password", text: "Current password" }),
    old,
    el("label", { for: "new-password", text: "New password" }),
    fresh,
    el("div", { class: "row" }, [el("button", { type: "submit", class: "primary", text: "Change password" })]),
    result,
  ]);
}
