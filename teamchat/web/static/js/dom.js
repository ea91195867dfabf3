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

