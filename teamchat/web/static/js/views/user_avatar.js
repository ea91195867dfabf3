// A person's picture: their uploaded avatar, or their initials on a colour (a Gravatar would
// come from another site, which the page's Content-Security-Policy does not load).

import { el } from "../dom.js";

function initials(name) {
  return (name || "?")
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => word[0].toUpperCase())
    .join("");
}

export function ownAvatarUrl(user) {
  if (!user?.avatar_url) return "";
  const url = new URL(user.avatar_url, location.href);
  return url.origin === location.origin ? url.href : "";
}

export function userAvatar(user, size = "large") {
  const src = ownAvatarUrl(user);
  if (src) return el("img", { class: `user-avatar ${size}`, src, alt: "" });
  return el("span", {
    class: `user-avatar ${size} color-${(user?.user_id ?? 0) % 8}`,
    "aria-hidden": "true",
    text: initials(user?.full_name),
  });
}
