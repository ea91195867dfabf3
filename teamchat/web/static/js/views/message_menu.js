// A message's "more actions" menu: quote and reply, copy link, mark as unread from here, and
// view the edit history (each version as the server renders it, edits as its HTML diff).

import { get, post } from "../api.js";
import { el } from "../dom.js";
import { apiNarrow, narrowToHash, sameNarrow } from "../narrow.js";
import { applyMathStyles } from "../math_styles.js";
import { conversationOf, messageUrl, quoteText } from "../message_links.js";
import { avatar } from "./messages.js";
import { notice, openMenu } from "./popup_menu.js";

const BATCH = 1000;

function lookup(state) {
  return { streamName: (id) => state.streamName(id), userName: (id) => state.userName(id) };
}

export function moreButton(message, list) {
  const button = el("button", {
    type: "button",
    class: "more",
    "aria-label": "More actions",
    "aria-haspopup": "menu",
    "aria-expanded": "false",
    title: "More actions",
    text: "⋯",
  });
  button.addEventListener("click", () => openMenu(button, "Message actions", menuItems(message, list)));
  return button;
}

function menuItems(message, list) {
  const items = [
    { label: "Quote and reply", run: () => quoteAndReply(message, list) },
    { label: "Copy link to message", run: () => copyLink(message, list) },
    { label: "Mark as unread from here", run: () => markUnreadFromHere(message, list) },
  ];
  if (message.last_edit_timestamp || message.last_moved_timestamp || message.edit_history) {
    items.push({ label: "View edit history", run: () => showHistory(message, list) });
  }
  return items;
}

// The raw Markdown quoted into the compose box, in the message's conversation.
export async function quoteAndReply(message, list) {
  const { state } = list;
  let raw;
  try {
    raw = (await get(`/messages/${message.id}`, { apply_markdown: false })).message.content;
  } catch (error) {
    list.actions.onError(`Cannot quote: ${error.message}`);
    return;
  }
  const text = quoteText(message, raw, messageUrl(location.origin, message, lookup(state), state.myId));
  const conversation = conversationOf(message, state.myId);
  const insert = () => {
    const textarea = document.getElementById("compose-content");
    if (!textarea) return;
    const before = textarea.value && !textarea.value.endsWith("\n") ? `${textarea.value}\n` : textarea.value;
    textarea.value = `${before}${text}\n`;
    textarea.dispatchEvent(new Event("input")); // kept as the conversation's draft
    textarea.focus();
    textarea.setSelectionRange(textarea.value.length, textarea.value.length);
  };
  if (sameNarrow(list.narrow, conversation)) {
    insert();
    return;
  }
  // The app draws the new narrow (and its compose box) on hashchange, before this listener.
  window.addEventListener("hashchange", insert, { once: true });
  location.hash = narrowToHash(conversation, lookup(state));
}

export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Plain HTTP on another host has no clipboard API: the older way.
  const area = el("textarea", { class: "visually-hidden", "aria-hidden": "true" });
  area.value = text;
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("the browser did not allow copying");
}

async function copyLink(message, list) {
  const url = messageUrl(location.origin, message, lookup(list.state), list.state.myId);
  try {
    await copyText(url);
    notice("Link copied to the clipboard");
  } catch (error) {
    list.actions.onError(`Could not copy the link (${url}): ${error.message}`);
  }
}

// Zulip's "mark as unread from here": this message and every later one in the narrow. The
// list stops marking messages read until the person opens another narrow.
export async function markUnreadFromHere(message, list) {
  list.readingPaused = true;
  let anchor = message.id;
  let includeAnchor = true;
  try {
    for (;;) {
      const body = await post("/messages/flags/narrow", {
        anchor: String(anchor),
        include_anchor: includeAnchor,
        num_before: 0,
        num_after: BATCH,
        narrow: apiNarrow(list.narrow),
        op: "remove",
        flag: "read",
      });
      if (body.found_newest || body.last_processed_id === null) break;
      anchor = body.last_processed_id;
      includeAnchor = false;
    }
  } catch (error) {
    list.actions.onError(`Could not mark as unread: ${error.message}`);
  }
}

const when = (ts) => new Date(ts * 1000).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });

function versionNode(version, index, state) {
  const who = state.userName(version.user_id);
  let what = "Original";
  if (index > 0) {
    const parts = [];
    if (version.prev_content !== undefined) parts.push("Edited");
    if (version.prev_topic !== undefined) parts.push("Topic moved");
    if (version.prev_stream !== undefined) parts.push("Channel moved");
    what = parts.join(", ") || "Edited";
  }
  const content = el("div", { class: "content" });
  // The server's rendered HTML: the diff against the version before, or the version itself.
  content.innerHTML = version.content_html_diff ?? version.rendered_content;
  applyMathStyles(content);
  const changes = [];
  if (version.prev_topic !== undefined) {
    changes.push(
      el("p", { class: "history-change" }, [
        el("span", { text: "Topic: " }),
        el("del", { text: version.prev_topic || "(no topic)" }),
        el("span", { text: " → " }),
        el("ins", { text: version.topic || "(no topic)" }),
      ]),
    );
  }
  if (version.prev_stream !== undefined) {
    changes.push(
      el("p", { class: "history-change", text: `Channel: ${state.streamName(version.prev_stream)} → ${state.streamName(version.stream)}` }),
    );
  }
  return el("li", { class: "history-version" }, [
    el("div", { class: "sender-line" }, [
      avatar(version.user_id, who),
      el("span", { class: "sender", text: who }),
      el("span", { class: "history-kind", text: what }),
      el("time", { datetime: new Date(version.timestamp * 1000).toISOString(), text: when(version.timestamp) }),
    ]),
    ...changes,
    content,
  ]);
}

export async function showHistory(message, list) {
  let history;
  try {
    history = (await get(`/messages/${message.id}/history`)).message_history;
  } catch (error) {
    list.actions.onError(`Cannot show the edit history: ${error.message}`);
    return;
  }
  const dialog = el("dialog", { class: "edit-history", "aria-labelledby": "edit-history-title" }, [
    el("div", { class: "dialog-head" }, [
      el("h2", { id: "edit-history-title", text: "Message edit history" }),
      el("button", { type: "button", class: "close", text: "Close", onclick: () => dialog.close() }),
    ]),
    el("ol", { class: "history-versions" }, history.map((version, i) => versionNode(version, i, list.state))),
  ]);
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}
