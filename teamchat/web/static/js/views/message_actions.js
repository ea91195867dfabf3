// What a person can do on a message: star it, react with 👍, and edit or delete their own.
// Editing happens in place, with the raw Markdown fetched from the server; the change comes
// back as an update_message event like anyone else's edit.

import { del, get, patch, post } from "../api.js";
import { el } from "../dom.js";
import { openEmojiPicker } from "./emoji_picker.js";
import { moreButton } from "./message_menu.js";

const THUMBS_UP = { emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji" };

export function actionsNode(message, list) {
  const { state } = list;
  const report = (error) => list.actions.onError(error.message);
  const starred = (message.flags || []).includes("starred");
  const reacted = (message.reactions || []).some(
    (r) => r.user_id === state.myId && r.emoji_code === THUMBS_UP.emoji_code,
  );
  const buttons = [
    el("button", {
      type: "button",
      class: "star",
      "aria-pressed": String(starred),
      "aria-label": starred ? "Unstar" : "Star",
      title: starred ? "Unstar" : "Star",
      text: starred ? "★" : "☆",
      onclick: () =>
        post("/messages/flags", {
          messages: [message.id],
          op: starred ? "remove" : "add",
          flag: "starred",
        }).catch(report),
    }),
  ];
  if (!reacted) {
    buttons.push(
      el("button", {
        type: "button",
        class: "react",
        "aria-label": "React with thumbs up",
        title: "React with 👍",
        text: "👍",
        onclick: () => post(`/messages/${message.id}/reactions`, THUMBS_UP).catch(report),
      }),
    );
  }
  const picker = el("button", {
    type: "button",
    class: "react-any",
    "aria-label": "Add reaction",
    "aria-haspopup": "dialog",
    title: "Add reaction",
    text: "☺+",
  });
  picker.addEventListener("click", () => openEmojiPicker(picker, message, state.myId, (text) => list.actions.onError(text)));
  buttons.push(picker);
  if (message.sender_id === state.myId) {
    buttons.push(
      el("button", { type: "button", class: "edit", text: "Edit", onclick: () => startEdit(message, list) }),
      el("button", {
        type: "button",
        class: "delete",
        text: "Delete",
        onclick: () => {
          if (window.confirm("Delete this message?")) {
            del(`/messages/${message.id}`).catch(report);
          }
        },
      }),
    );
  }
  buttons.push(moreButton(message, list));
  return el("div", { class: "message-actions", role: "toolbar", "aria-label": "Message actions" }, buttons);
}

async function startEdit(message, list) {
  try {
    const body = await get(`/messages/${message.id}`, { apply_markdown: false });
    list.editing = { id: message.id, draft: body.message.content };
    list.redraw();
    list.container.querySelector(".edit-box textarea")?.focus();
  } catch (error) {
    list.actions.onError(`Cannot edit: ${error.message}`);
  }
}

export function editorNode(message, list) {
  const editing = list.editing;
  const textarea = el("textarea", { "aria-label": "Edit message", rows: 3 });
  textarea.value = editing.draft;
  textarea.addEventListener("input", () => {
    editing.draft = textarea.value;
  });
  const stop = () => {
    list.editing = null;
    list.redraw();
  };
  const save = async () => {
    try {
      await patch(`/messages/${message.id}`, { content: textarea.value });
      stop();
    } catch (error) {
      list.actions.onError(`Not saved: ${error.message}`);
    }
  };
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      save();
    } else if (event.key === "Escape") stop();
  });
  return el("div", { class: "edit-box" }, [
    textarea,
    el("div", { class: "edit-buttons" }, [
      el("button", { type: "button", class: "save", text: "Save", onclick: save }),
      el("button", { type: "button", class: "cancel", text: "Cancel", onclick: stop }),
    ]),
  ]);
}
