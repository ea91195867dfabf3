// A small menu that opens beside a button: role="menu", arrow keys move, Enter or a click
// runs an item, Esc or a click elsewhere closes it and gives focus back to the button.

import { el } from "../dom.js";

let open = null;

// A short notice (or a problem, in its colours) that goes away by itself.
export function notice(text, isError = false) {
  document.querySelector(".notice-toast")?.remove();
  const node = el("p", { class: `notice-toast${isError ? " error" : ""}`, role: isError ? "alert" : "status", text });
  document.body.append(node);
  setTimeout(() => node.remove(), isError ? 8000 : 3000);
}

export function closePopup() {
  if (!open) return;
  const { node, anchor, onOutside } = open;
  open = null;
  document.removeEventListener("mousedown", onOutside, true);
  node.remove();
  if (anchor.isConnected) anchor.focus();
}

// Place a fixed-position popup under (or above) `anchor`, inside the window. Element.style is
// CSSOM, which the Content-Security-Policy allows (only style attributes in markup are blocked).
export function placeBeside(node, anchor) {
  const rect = anchor.getBoundingClientRect();
  const width = node.offsetWidth;
  const height = node.offsetHeight;
  const left = Math.max(4, Math.min(rect.right - width, window.innerWidth - width - 4));
  const below = rect.bottom + 4;
  const top = below + height <= window.innerHeight ? below : Math.max(4, rect.top - height - 4);
  node.style.left = `${left}px`;
  node.style.top = `${top}px`;
}

// Show `node` as the one open popup beside `anchor`.
export function showPopup(node, anchor) {
  closePopup();
  const onOutside = (event) => {
    if (!node.contains(event.target) && !anchor.contains(event.target)) closePopup();
  };
  open = { node, anchor, onOutside };
  // Inside the main landmark, so screen readers find it in the page's structure.
  (document.querySelector("main") ?? document.body).append(node);
  placeBeside(node, anchor);
  document.addEventListener("mousedown", onOutside, true);
}

// items: [{label, run}]
export function openMenu(anchor, label, items) {
  const buttons = items.map((item) =>
    el("button", {
      type: "button",
      role: "menuitem",
      tabindex: "-1",
      text: item.label,
      onclick: () => {
        closePopup();
        item.run();
      },
    }),
  );
  const node = el("div", { class: "popup-menu", role: "menu", "aria-label": label }, buttons);
  node.addEventListener("keydown", (event) => {
    const index = buttons.indexOf(document.activeElement);
    let next = null;
    if (event.key === "ArrowDown") next = (index + 1) % buttons.length;
    else if (event.key === "ArrowUp") next = (index - 1 + buttons.length) % buttons.length;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = buttons.length - 1;
    else if (event.key === "Escape" || event.key === "Tab") {
      event.preventDefault();
      event.stopPropagation();
      closePopup();
      return;
    }
    if (next === null) return;
    event.preventDefault();
    buttons[next].focus();
  });
  showPopup(node, anchor);
  anchor.setAttribute("aria-expanded", "true");
  const observer = new MutationObserver(() => {
    if (!node.isConnected) {
      anchor.setAttribute("aria-expanded", "false");
      observer.disconnect();
    }
  });
  observer.observe(document.body, { childList: true });
  buttons[0]?.focus();
}
