// The people list: everyone in the organization with a presence dot (active, idle, offline,
// also said in words for screen readers); clicking someone opens the conversation with them.

import { el } from "../dom.js";
import { dmHash } from "../narrow.js";
import { focusKey, restoreFocus } from "./keep_focus.js";
import { statusNode } from "./user_status.js";

const ORDER = { active: 0, idle: 1, offline: 2 };
const WORDS = { active: "active", idle: "idle", offline: "offline" };

// Drawn in parts so that a big organization's screen is usable at once: the first people
// now, the rest a part at a time while the browser is idle (a new drawing drops the rest
// of an older one).
const FIRST_PART = 100;
const PART = 400;
const drawing = new WeakMap(); // container -> the drawing that may still add parts
const byName = new Intl.Collator(undefined, { sensitivity: "base" }).compare;
const later = (work) => (window.requestIdleCallback ? requestIdleCallback(work, { timeout: 300 }) : setTimeout(work, 0));

function personItem(state, info, { user, status }) {
  return el("li", { class: `person ${status}`, dataset: { userId: user.user_id } }, [
    el("a", { href: dmHash([user.user_id], (id) => state.userName(id)) }, [
      el("span", { class: `dot ${status}`, "aria-hidden": "true" }),
      el("span", { class: "label", text: user.full_name }),
      el("span", { class: "visually-hidden", text: ` (${WORDS[status]})` }),
      statusNode(info, user.user_id),
    ]),
  ]);
}

export function renderPeople(container, state, presence, info) {
  const people = [];
  for (const user of state.users.values()) {
    if (!user.is_bot && user.is_active !== false) people.push({ user, status: presence.status(user.user_id) });
  }
  people.sort((a, b) => ORDER[a.status] - ORDER[b.status] || byName(a.user.full_name, b.user.full_name));
  const item = (person) => personItem(state, info, person);
  const focused = focusKey(container);
  const list = el("ul", {}, people.slice(0, FIRST_PART).map(item));
  container.replaceChildren(el("h2", { text: "People" }), list);
  restoreFocus(container, focused);
  const token = {};
  drawing.set(container, token);
  let next = FIRST_PART;
  const more = () => {
    if (drawing.get(container) !== token || next >= people.length) return;
    list.append(...people.slice(next, next + PART).map(item));
    next += PART;
    restoreFocus(container, focused);
    later(more);
  };
  later(more);
}
