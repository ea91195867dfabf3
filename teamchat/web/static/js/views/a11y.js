// Accessibility helpers: a polite live region that reads out new messages from others (the
// message list itself is not live: it is drawn again on every change), and dialogs that give
// the focus back to where it was when they close.

import { el } from "../dom.js";

let region = null;
let lastOutside = null; // the last focused element outside any dialog

document.addEventListener("focusin", (event) => {
  if (!event.target.closest?.("dialog")) lastOutside = event.target;
});

export function announce(text) {
  if (!region) {
    region = el("div", { id: "announce", class: "visually-hidden", role: "status", "aria-live": "polite" });
    document.body.append(region);
  }
  region.textContent = text;
}

// The plain text of the server's rendered HTML, parsed in an inert document (nothing runs,
// nothing loads), for the screen reader.
function plainText(html) {
  const text = new DOMParser().parseFromString(html, "text/html").body.textContent ?? "";
  const squeezed = text.replace(/\s+/g, " ").trim();
  return squeezed.length > 160 ? `${squeezed.slice(0, 160)}…` : squeezed;
}

// A message event: "Bob in #design › logo: the text" (others' messages only).
export function announceMessage(event, state) {
  const message = event.message;
  if (message.sender_id === state.myId) return;
  const where =
    message.type === "stream"
      ? `in # ${state.streamName(message.stream_id)} › ${message.subject || "(no topic)"}`
      : "to you";
  announce(`${message.sender_full_name} ${where}: ${plainText(message.content)}`);
}

// When `dialog` closes, the focus goes back to what had it before it opened.
export function keepFocusAcross(dialog) {
  dialog.addEventListener("close", () => {
    if (lastOutside?.isConnected) lastOutside.focus();
  });
}
