// The people list: everyone in the organization with a presence dot (active, idle, offline,
// also said in words for screen readers); clicking someone opens the conversation with them.

import { el } from "../dom.js";
import { dmHash } from "../narrow.js";
import { focusKey, restoreFocus } from "./keep_focus.js";
import { statusNode } from "./user_status.js";

const ORDER = { active: 0, idle: 1, offline: 2 };
const WORDS = { active: "active", idle: "idle", offline: "offline" };

export function renderPeople(container, state, presence, info) {
  const people = [...state.users.values()]
    .filter((user) => !user.is_bot && user.is_active !== false)
    .map((user) => ({ user, status: presence.status(user.user_id) }))
    .sort(
      (a, b) => ORDER[a.status] - ORDER[b.status] || a.user.full_name.localeCompare(b.user.full_name),
    );
  const items = people.map(({ user, status }) =>
    el("li", { class: `person ${status}`, dataset: { userId: user.user_id } }, [
      el("a", { href: dmHash([user.user_id], (id) => state.userName(id)) }, [
        el("span", { class: `dot ${status}`, "aria-hidden": "true" }),
        el("span", { class: "label", text: user.full_name }),
        el("span", { class: "visually-hidden", text: ` (${WORDS[status]})` }),
        statusNode(info, user.user_id),
      ]),
    ]),
  );
  const focused = focusKey(container);
  container.replaceChildren(el("h2", { text: "People" }), el("ul", {}, items));
  restoreFocus(container, focused);
}
