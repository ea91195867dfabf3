// Emoji reactions under a message: one button per emoji with its count, pressed when the
// person reacted; pressing it adds or removes their reaction.

import { del, post } from "../api.js";
import { el } from "../dom.js";
import { frequentFor, openEmojiPicker } from "./emoji_picker.js";

export function emojiText(reaction) {
  if (reaction.reaction_type === "unicode_emoji") {
    try {
      return String.fromCodePoint(...reaction.emoji_code.split("-").map((hex) => parseInt(hex, 16)));
    } catch {
      return `:${reaction.emoji_name}:`;
    }
  }
  return `:${reaction.emoji_name}:`;
}

export function groupReactions(reactions) {
  const groups = new Map();
  for (const reaction of reactions) {
    const key = `${reaction.reaction_type}:${reaction.emoji_code}`;
    if (!groups.has(key)) groups.set(key, { ...reaction, userIds: [] });
    groups.get(key).userIds.push(reaction.user_id);
  }
  return [...groups.values()];
}

export function reactionsNode(message, myId, onError) {
  const buttons = groupReactions(message.reactions || []).map((group) => {
    const mine = group.userIds.includes(myId);
    const params = {
      emoji_name: group.emoji_name,
      emoji_code: group.emoji_code,
      reaction_type: group.reaction_type,
    };
    const toggle = () => {
      const request = mine ? del : post;
      if (!mine) frequentFor(myId).note({ type: group.reaction_type, code: group.emoji_code });
      request(`/messages/${message.id}/reactions`, params).catch((e) => onError(e.message));
    };
    return el(
      "button",
      {
        type: "button",
        class: `reaction${mine ? " mine" : ""}`,
        "aria-pressed": String(mine),
        "aria-label": `${group.emoji_name}: ${group.userIds.length}`,
        onclick: toggle,
      },
      [el("span", { class: "emoji", text: emojiText(group) }), el("span", { text: String(group.userIds.length) })],
    );
  });
  if (buttons.length) {
    const more = el("button", {
      type: "button",
      class: "add-reaction",
      "aria-label": "Add reaction",
      "aria-haspopup": "dialog",
      title: "Add reaction",
      text: "+",
    });
    more.addEventListener("click", () => openEmojiPicker(more, message, myId, onError));
    buttons.push(more);
  }
  return el("div", { class: "reactions" }, buttons);
}
