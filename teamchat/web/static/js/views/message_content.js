// What the client adds to a message's rendered HTML (the server's sanitized markup, already in
// the page): Unicode emoji as characters, mentions of you marked as Zulip's web app marks them
// (`user-mention-me`), image previews as bounded thumbnails that open in the viewer, video
// previews that open the video's page, and other uploaded files as file cards. Only DOM nodes built here are added; no HTML is parsed.

import { el } from "../dom.js";
import { inGroupSetting } from "../permissions.js";
import { extras } from "../realm_extras.js";
import { openLightbox } from "./lightbox.js";

const IMAGE_FILE = /\.(apng|avif|bmp|gif|heic|jpe?g|png|svg|tiff?|webp)$/i;
// Thumbnails fit this box (CSS keeps to it too); reserving the size avoids a jump on load.
const THUMB_WIDTH = 300;
const THUMB_HEIGHT = 200;

export function decorateContent(content, myId) {
  showEmoji(content);
  markMentions(content, myId);
  showPreviews(content);
  showFileCards(content);
}

// The server writes Unicode emoji as <span class="emoji emoji-1f44b">:wave:</span> (Zulip's
// web app draws them from a sprite sheet); show the character itself, as text.
function showEmoji(content) {
  for (const span of content.querySelectorAll("span.emoji")) {
    const code = [...span.classList].find((name) => /^emoji-[0-9a-f]+(-[0-9a-f]+)*$/.test(name));
    if (!code) continue;
    try {
      span.textContent = String.fromCodePoint(...code.slice(6).split("-").map((hex) => parseInt(hex, 16)));
    } catch {
      // not a code point: keep the :name:
    }
  }
}

// Mentions that reach you: of you, of a group you are in, and wildcards (@all, @topic...).
// A silent mention (@_name) notifies nobody and is not marked.
function markMentions(content, myId) {
  for (const mention of content.querySelectorAll(".user-mention[data-user-id]")) {
    const id = mention.dataset.userId;
    if (id === "*" || Number(id) === myId) mention.classList.add("user-mention-me");
  }
  const groups = extras.permissions.groups;
  for (const mention of content.querySelectorAll(".user-group-mention[data-user-group-id]")) {
    const id = Number(mention.dataset.userGroupId);
    if (inGroupSetting(id, myId, groups)) mention.classList.add("user-mention-me");
  }
}

export function fileName(href) {
  try {
    const path = new URL(href, location.href).pathname;
    return decodeURIComponent(path.slice(path.lastIndexOf("/") + 1)) || "file";
  } catch {
    return "file";
  }
}

function isUpload(href) {
  try {
    const url = new URL(href, location.href);
    return url.origin === location.origin && url.pathname.startsWith("/user_uploads/");
  } catch {
    return false;
  }
}

// Zulip's image preview: <div class="message_inline_image"><a href=ORIGINAL title=NAME><img
// src=THUMBNAIL data-original-dimensions="WxH"></a></div>, or, while the server makes the
// thumbnail, <img class="image-loading-placeholder">; an update_message event brings the
// finished thumbnail.
function showPreviews(content) {
  for (const preview of content.querySelectorAll(".message_inline_image")) {
    const link = preview.querySelector("a[href]");
    const img = link?.querySelector("img");
    if (!link || !img) continue;
    if (preview.matches(".youtube-video, .embed-video")) {
      showVideo(preview, link, img);
      continue;
    }
    const href = link.getAttribute("href");
    const name = link.getAttribute("title") || fileName(href);
    const loading = img.classList.contains("image-loading-placeholder");
    preview.classList.toggle("loading", loading);
    img.alt = loading ? `${name} (preparing a preview)` : name;
    img.setAttribute("loading", "lazy");
    reserveSize(img);
    link.setAttribute("aria-label", `View ${name}`);
    link.addEventListener("click", (event) => {
      if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      const id = link.closest("article.message")?.dataset.id;
      const refind = () =>
        document.querySelector(`article.message[data-id="${id}"] .message_inline_image a[href="${CSS.escape(href)}"]`);
      openLightbox({ href, src: fullPicture(img, href), name, from: link, refind, download: isUpload(href) });
    });
  }
}

// What the viewer shows: the original, or for a type browsers do not show (HEIC) the server's
// full-size WebP of it, named by data-transcoded-image next to the thumbnail (as Zulip's does).
function fullPicture(img, href) {
  const transcoded = img.dataset.transcodedImage;
  const thumbnail = img.getAttribute("src") || "";
  if (!transcoded || !/^[0-9]+x[0-9]+\.webp$/.test(transcoded)) return href;
  if (!thumbnail.startsWith("/user_uploads/thumbnail/")) return href;
  return thumbnail.replace(/\/[^/]+$/, `/${transcoded}`);
}

// A video preview (YouTube's still, or an oEmbed player's such as Vimeo's): the still image,
// served through the server's proxy, with a play badge; a click opens the video on its site in
// a new tab. The page never loads the provider's player (no third-party frame or script).
function showVideo(preview, link, img) {
  const href = link.getAttribute("href");
  let site = "its site";
  try {
    site = new URL(href).hostname.replace(/^(www|m)\./, "");
  } catch {
    return;
  }
  const name = link.getAttribute("title") || "video";
  preview.classList.add("video-preview");
  img.alt = name;
  img.setAttribute("loading", "lazy");
  link.target = "_blank";
  link.rel = "noopener noreferrer";
  link.setAttribute("aria-label", `Play ${name} on ${site} (opens a new tab)`);
  link.append(el("span", { class: "video-play", "aria-hidden": "true" }));
}

function reserveSize(img) {
  const match = /^(\d+)x(\d+)$/.exec(img.dataset.originalDimensions || "");
  if (!match) return;
  const [width, height] = [Number(match[1]), Number(match[2])];
  if (!width || !height) return;
  const scale = Math.min(1, THUMB_WIDTH / width, THUMB_HEIGHT / height);
  img.width = Math.max(1, Math.round(width * scale));
  img.height = Math.max(1, Math.round(height * scale));
}

// A link to an uploaded file that has no image preview in this message: a card with the
// file's kind, its name (the link, opened as before) and a download button.
function showFileCards(content) {
  const previewed = new Set(
    [...content.querySelectorAll(".message_inline_image a[href]")].map((a) => a.getAttribute("href")),
  );
  for (const link of content.querySelectorAll("a[href]")) {
    const href = link.getAttribute("href");
    if (!isUpload(href) || previewed.has(href) || link.closest(".message_inline_image, .file-card")) continue;
    const name = fileName(href);
    const dot = name.lastIndexOf(".");
    const kind = dot > 0 ? name.slice(dot + 1, dot + 5).toUpperCase() : "FILE";
    const card = el("span", { class: `file-card${IMAGE_FILE.test(name) ? " image-file" : ""}` });
    link.replaceWith(card);
    link.classList.add("file-name");
    link.title = name;
    card.append(
      el("span", { class: "file-icon", "aria-hidden": "true", text: kind }),
      link,
      el("a", {
        class: "file-download",
        href,
        download: name,
        title: `Download ${name}`,
        "aria-label": "Download",
        text: "⤓",
      }),
    );
  }
}
