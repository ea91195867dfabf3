// A person's status (emoji and text) where people are shown, and the form that sets one's
// own (POST /users/me/status); the list, the card and the form follow user_status events.

import { post } from "../api.js";
import { el } from "../dom.js";

// Zulip's suggested statuses.
const PRESETS = [
  ["calendar", "📅", "In a meeting"],
  ["bus", "🚌", "Commuting"],
  ["sick", "🤒", "Out sick"],
  ["palm_tree", "🌴", "Vacationing"],
  ["house", "🏠", "Working remotely"],
  ["office", "🏢", "At the office"],
];

export function statusNode(info, userId) {
  const status = info?.status(userId);
  if (!status) return null;
  return el("span", { class: "user-status", title: status.text || null }, [
    status.emoji ? el("span", { class: "status-emoji", text: status.emoji }) : null,
    status.text ? el("span", { class: "status-text", text: status.text }) : null,
  ]);
}

function statusWords(info, userId) {
  const status = info.status(userId);
  return status ? `${status.emoji} ${status.text}`.trim() : "No status set.";
}

export function statusSection(state, info) {
  const current = el("p", { class: "current-status", dataset: { refresh: "status" } });
  current.textContent = statusWords(info, state.myId);
  const own = info.statuses.get(state.myId) || {};
  const emoji = el("input", { id: "status-emoji", placeholder: "e.g. coffee", autocomplete: "off" });
  emoji.value = own.emoji_name || "";
  const text = el("input", { id: "status-text", maxlength: "60", autocomplete: "off" });
  text.value = own.status_text || "";
  const result = el("p", { class: "result", "aria-live": "polite" });
  const send = async (status_text, emoji_name) => {
    result.className = "result";
    result.textContent = "…";
    try {
      await post("/users/me/status", { status_text, emoji_name });
      result.textContent = status_text || emoji_name ? "Status set." : "Status cleared.";
    } catch (error) {
      result.className = "result failed";
      result.textContent = error.message;
    }
  };
  const presets = PRESETS.map(([name, character, words]) =>
    el("button", {
      type: "button",
      class: "preset",
      text: `${character} ${words}`,
      onclick: () => {
        emoji.value = name;
        text.value = words;
      },
    }),
  );
  const clear = () => {
    emoji.value = "";
    text.value = "";
    send("", "");
  };
  return el("section", { id: "settings-status", "aria-labelledby": "settings-status-title" }, [
    el("h3", { id: "settings-status-title", text: "Status" }),
    current,
    el("div", { class: "presets" }, presets),
    el(
      "form",
      {
        onsubmit: (event) => {
          event.preventDefault();
          send(text.value.trim(), emoji.value.trim().replace(/^:|:$/g, ""));
        },
      },
      [
        el("div", { class: "pair" }, [
          el("div", {}, [el("label", { for: "status-emoji", text: "Status emoji name" }), emoji]),
          el("div", { class: "wide" }, [el("label", { for: "status-text", text: "Status text" }), text]),
        ]),
        el("div", { class: "row" }, [
          el("button", { type: "submit", class: "primary", text: "Set status" }),
          el("button", { type: "button", text: "Clear status", onclick: clear }),
        ]),
        result,
      ],
    ),
  ]);
}

export function refreshStatusSection(dialog, state, info) {
  const current = dialog.querySelector("[data-refresh=status]");
  if (current) current.textContent = statusWords(info, state.myId);
}
