// Views drawn again from scratch (the message list, the left pane) would drop the keyboard
// focus onto the page; these find the same control in the new drawing and focus it again.

export function focusKey(container) {
  const focused = document.activeElement;
  if (!focused || focused === container || !container.contains(focused)) return null;
  return {
    tag: focused.tagName,
    inArticle: focused.closest("[data-id]")?.dataset.id ?? null,
    attrs: ["href", "aria-label", "class"].map((name) => focused.getAttribute(name)),
    text: focused.textContent,
  };
}

export function restoreFocus(container, key) {
  if (!key || container.contains(document.activeElement)) return;
  const scope = key.inArticle === null ? container : container.querySelector(`[data-id="${key.inArticle}"]`);
  // A link is the same link wherever it points (its text may hold a changed unread count).
  const href = key.attrs[0];
  const nodes = [...(scope?.querySelectorAll(key.tag) ?? [])];
  const label = (node) => node.getAttribute("aria-label") === key.attrs[1];
  const same =
    href !== null
      ? // Two links to one file (a name and its picture): the one with the same label first.
        (nodes.find((node) => node.getAttribute("href") === href && label(node)) ??
        nodes.find((node) => node.getAttribute("href") === href))
      : nodes.find(
          (node) =>
            ["href", "aria-label", "class"].every((name, i) => node.getAttribute(name) === key.attrs[i]) &&
            node.textContent === key.text,
        );
  same?.focus({ preventScroll: true });
}
