// Building DOM nodes. Text always goes in as textContent; the one place HTML goes in is the
// server's sanitized rendered message content (see views/messages.js).

export function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

export function badge(count, label) {
  if (!count) return null;
  return el("span", { class: "badge", text: String(count), "aria-label": `${count} ${label}` });
}

// Redraw `container` with `children`; a link inside it that had the keyboard focus keeps it
// (the same href in the new nodes), so live updates never throw a keyboard user out.
export function replaceKeepingFocus(container, ...children) {
  const focused = document.activeElement;
  const href = container.contains(focused) ? focused.getAttribute("href") : null;
  container.replaceChildren(...children);
  if (href === null) return;
  const again = [...container.querySelectorAll("a[href]")].find((a) => a.getAttribute("href") === href);
  again?.focus();
}
