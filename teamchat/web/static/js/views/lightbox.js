// The image viewer: a picture from a message at full size, over everything. Escape, the Close
// button or a click outside the picture closes it, and the focus goes back to the thumbnail.

import { el } from "../dom.js";

let viewer = null;

function build() {
  const image = el("img", { class: "lightbox-image", alt: "" });
  const title = el("h2", { class: "lightbox-title", id: "lightbox-title" });
  const download = el("a", { class: "lightbox-button", text: "Download" });
  const original = el("a", { class: "lightbox-button", target: "_blank", rel: "noopener", text: "Open original" });
  const close = el("button", { type: "button", class: "lightbox-button lightbox-close", text: "Close" });
  const dialog = el("dialog", { class: "lightbox", "aria-labelledby": "lightbox-title" }, [
    el("div", { class: "lightbox-bar" }, [title, download, original, close]),
    el("div", { class: "lightbox-stage" }, [image]),
  ]);
  close.addEventListener("click", () => dialog.close());
  // A click anywhere but on the picture or the bar's controls closes the viewer.
  dialog.addEventListener("click", (event) => {
    if (!event.target.closest(".lightbox-image, a, button")) dialog.close();
  });
  dialog.addEventListener("close", () => {
    image.removeAttribute("src");
    // The list may have been drawn again meanwhile: the same link in its new node.
    const from = viewer.from?.isConnected ? viewer.from : viewer.refind?.();
    from?.focus();
  });
  document.body.append(dialog);
  return { dialog, image, title, download, original, close, from: null };
}

// {href: the original file, src: the full-size picture to show (default: href), name, from:
// the element to focus again (refind(): it again, once drawn anew), download: offer it}
export function openLightbox({ href, src = href, name, from, refind, download = true }) {
  viewer = viewer || build();
  viewer.from = from;
  viewer.refind = refind;
  viewer.title.textContent = name;
  viewer.image.alt = name;
  viewer.image.src = src;
  viewer.original.href = href;
  viewer.download.hidden = !download;
  if (download) {
    viewer.download.href = href;
    viewer.download.setAttribute("download", name);
  }
  viewer.dialog.showModal();
  viewer.close.focus();
}
