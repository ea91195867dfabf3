// The emoji picker for reactions: a search box over the server's emoji and the organization's
// custom emoji, the person's frequently used ones at the top. The search box keeps the focus
// (a combobox): arrows move through the grid, Enter reacts, Esc closes.

import { del, post } from "../api.js";
import { el } from "../dom.js";
import { FrequentEmoji, emojiChars, emojiList, searchEmoji } from "../emoji_data.js";
import { extras } from "../realm_extras.js";
import { closePopup, placeBeside, showPopup } from "./popup_menu.js";

let codeToNames = null; // the server's emoji data, fetched once

async function serverEmoji() {
  if (codeToNames) return codeToNames;
  if (!extras.emojiDataPath) return {};
  const response = await fetch(extras.emojiDataPath, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`emoji data: HTTP ${response.status}`);
  codeToNames = (await response.json()).code_to_names;
  return codeToNames;
}

export const frequentFor = (myId) => new FrequentEmoji(globalThis.localStorage, myId);

// Add the person's reaction, or take it back if they already reacted with it.
export function toggleReaction(message, emoji, myId) {
  const mine = (message.reactions || []).some(
    (r) => r.user_id === myId && r.reaction_type === emoji.type && r.emoji_code === emoji.code,
  );
  const params = { emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: emoji.type };
  if (mine) return del(`/messages/${message.id}/reactions`, params);
  frequentFor(myId).note(emoji);
  return post(`/messages/${message.id}/reactions`, params);
}

function glyph(emoji) {
  if (emoji.type === "realm_emoji") return el("img", { src: emoji.url, alt: "", class: "custom-emoji" });
  return emojiChars(emoji.code) ?? `:${emoji.name}:`;
}

let serial = 0;

// Open the picker beside `anchor`, reacting to `message` with the chosen emoji.
export async function openEmojiPicker(anchor, message, myId, onError) {
  let all;
  try {
    all = emojiList(await serverEmoji(), extras.realmEmoji);
  } catch (error) {
    onError(`Could not load emoji: ${error.message}`);
    return;
  }
  const frequent = frequentFor(myId);
  const prefix = `emoji-${(serial += 1)}`;
  const input = el("input", {
    type: "search",
    class: "emoji-search",
    role: "combobox",
    placeholder: "Search emoji",
    "aria-label": "Search emoji",
    "aria-controls": `${prefix}-list`,
    "aria-expanded": "true",
    "aria-autocomplete": "list",
    autocomplete: "off",
  });
  const list = el("div", { class: "emoji-list", id: `${prefix}-list`, role: "listbox", "aria-label": "Emoji" });
  const picker = el("div", { class: "emoji-picker", role: "dialog", "aria-label": "Add a reaction" }, [input, list]);
  let options = [];
  let active = 0;

  const choose = (emoji) => {
    closePopup();
    toggleReaction(message, emoji, myId).catch((error) => onError(error.message));
  };
  const setActive = (index) => {
    if (!options.length) return;
    options[active]?.node.classList.remove("active");
    options[active]?.node.setAttribute("aria-selected", "false");
    active = Math.max(0, Math.min(index, options.length - 1));
    const node = options[active].node;
    node.classList.add("active");
    node.setAttribute("aria-selected", "true");
    input.setAttribute("aria-activedescendant", node.id);
    node.scrollIntoView({ block: "nearest" });
  };
  const section = (title, emojis) => {
    if (!emojis.length) return null;
    const nodes = emojis.map((emoji) => {
      const index = options.length;
      const node = el(
        "div",
        {
          class: "emoji-option",
          role: "option",
          id: `${prefix}-${index}`,
          "aria-selected": "false",
          "aria-label": emoji.name.replace(/_/g, " "),
          title: `:${emoji.name}:`,
          onclick: () => choose(emoji),
          onmousemove: () => setActive(index),
        },
        [glyph(emoji)],
      );
      options.push({ emoji, node });
      return node;
    });
    return el("div", { class: "emoji-section", role: "group", "aria-label": title }, [
      el("p", { class: "emoji-heading", "aria-hidden": "true", text: title }),
      el("div", { class: "emoji-grid" }, nodes),
    ]);
  };
  const draw = () => {
    options = [];
    active = 0;
    const query = input.value;
    const sections = query.trim()
      ? [section("Search results", searchEmoji(all, query))]
      : [
          section("Frequently used", frequent.top(all)),
          section("Custom emoji", all.filter((emoji) => emoji.type === "realm_emoji")),
          section("All emoji", all.filter((emoji) => emoji.type !== "realm_emoji")),
        ];
    const shown = sections.filter(Boolean);
    list.replaceChildren(...(shown.length ? shown : [el("p", { class: "emoji-none", text: "No emoji match." })]));
    input.removeAttribute("aria-activedescendant");
    setActive(0);
  };
  // The option in the next row up or down whose middle is closest to this one's.
  const vertical = (direction) => {
    const here = options[active].node;
    const top = here.offsetTop + here.offsetParent.offsetTop;
    const middle = here.offsetLeft + here.offsetWidth / 2;
    let best = null;
    let rowTop = null;
    const order = direction > 0 ? options.slice(active + 1) : options.slice(0, active).reverse();
    for (const option of order) {
      const node = option.node;
      const nodeTop = node.offsetTop + node.offsetParent.offsetTop;
      if (direction > 0 ? nodeTop <= top : nodeTop >= top) continue;
      if (rowTop === null) rowTop = nodeTop;
      if (nodeTop !== rowTop) break;
      const distance = Math.abs(node.offsetLeft + node.offsetWidth / 2 - middle);
      if (!best || distance < best.distance) best = { option, distance };
    }
    return best ? options.indexOf(best.option) : active;
  };
  input.addEventListener("input", draw);
  input.addEventListener("keydown", (event) => {
    const moves = { ArrowRight: () => active + 1, ArrowLeft: () => active - 1 };
    if (event.key in moves && options.length) {
      event.preventDefault();
      setActive(moves[event.key]());
    } else if ((event.key === "ArrowDown" || event.key === "ArrowUp") && options.length) {
      event.preventDefault();
      setActive(vertical(event.key === "ArrowDown" ? 1 : -1));
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (options[active]) choose(options[active].emoji);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      closePopup();
    }
  });
  draw();
  showPopup(picker, anchor);
  placeBeside(picker, anchor);
  input.focus();
}
