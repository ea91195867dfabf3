// Profile cards: a person's avatar, name, status, role, email (as this viewer may see it),
// local time and custom profile fields, with a "Send direct message" button. Opened from the
// people list and from a sender's name or avatar; follows events while it is open.

import { el } from "../dom.js";
import { dmHash } from "../narrow.js";
import { FIELD_TYPES, fieldDisplay, localTime, roleName, visibleEmail } from "../user_info.js";
import { userAvatar } from "./user_avatar.js";
import { statusNode } from "./user_status.js";

let card = null; // {dialog, userId, state, info}

function cardDialog() {
  let dialog = document.getElementById("profile-card");
  if (!dialog) {
    dialog = el("dialog", { id: "profile-card", class: "profile-card", "aria-labelledby": "profile-card-name" });
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) dialog.close(); // a click on the backdrop
    });
    document.body.append(dialog);
  }
  return dialog;
}

function fieldValue(display, state) {
  switch (display.kind) {
    case "link":
      return el("a", { href: display.href, target: "_blank", rel: "noopener noreferrer", text: display.text });
    case "users":
      return el(
        "span",
        { class: "field-users" },
        display.userIds.map((id) =>
          el("button", {
            type: "button",
            class: "link-like",
            text: state.userName(id),
            onclick: () => openProfileCard(id, card.state, card.info),
          }),
        ),
      );
    case "html": {
      const node = el("div", { class: "rendered" });
      node.innerHTML = display.html; // the server's rendered, sanitized markdown
      return node;
    }
    default:
      return el("span", { text: display.text });
  }
}

function row(label, value) {
  return [el("dt", { text: label }), el("dd", {}, [value])];
}

function draw() {
  const { dialog, userId, state, info } = card;
  const user = state.users.get(userId) || { user_id: userId, full_name: state.userName(userId) };
  const rows = [];
  const email = visibleEmail(user, state.realmHost);
  if (email) rows.push(...row("Email", el("span", { text: email })));
  const time = localTime(user.timezone);
  if (time) rows.push(...row("Local time", el("span", { class: "local-time", text: `${time} (${user.timezone})` })));
  for (const field of info.fields) {
    if (field.type === FIELD_TYPES.PRONOUNS) continue; // shown under the name
    const display = fieldDisplay(field, user.profile_data?.[field.id], info.externalAccounts);
    if (display) rows.push(...row(field.name, fieldValue(display, state)));
  }
  const pronouns = info.fields.find((field) => field.type === FIELD_TYPES.PRONOUNS);
  const pronounText = pronouns ? user.profile_data?.[pronouns.id]?.value : "";
  dialog.replaceChildren(
    el("div", { class: "card-head" }, [
      userAvatar(user),
      el("div", {}, [
        el("h2", { id: "profile-card-name", text: user.full_name }),
        pronounText ? el("p", { class: "muted", text: pronounText }) : null,
        el("p", { class: "role", text: user.is_active === false ? "Deactivated" : roleName(user) }),
        statusNode(info, userId),
      ]),
    ]),
    rows.length ? el("dl", {}, rows) : null,
    el("div", { class: "row" }, [
      user.is_active === false
        ? null
        : el("button", {
            type: "button",
            class: "primary",
            text: "Send direct message",
            onclick: () => {
              dialog.close();
              location.hash = dmHash([userId], (id) => state.userName(id));
            },
          }),
      el("button", { type: "button", text: "Close", onclick: () => dialog.close() }),
    ]),
  );
}

export function openProfileCard(userId, state, info) {
  const dialog = cardDialog();
  card = { dialog, userId, state, info };
  draw();
  if (!dialog.open) dialog.showModal();
}

// Events changed people, statuses or fields: redraw the open card (with the latest state).
export function refreshProfileCard(state, info) {
  if (!card?.dialog.open) return;
  card.state = state;
  card.info = info;
  draw();
}
