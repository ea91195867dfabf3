// What message actions need from /register beyond State: where the server's emoji data is,
// the organization's custom emoji, and who may move or resolve topics. Kept current by events.

import { Permissions } from "./permissions.js";

export const extras = {
  emojiDataPath: null, // same-origin path of register's server_emoji_data_url
  realmEmoji: {}, // id -> {id, name, source_url, deactivated}
  permissions: new Permissions({}, [], 0),
};

function pathOf(url) {
  try {
    const parsed = new URL(url, location.href);
    return parsed.pathname + parsed.search;
  } catch {
    return null;
  }
}

export function loadExtras(registered) {
  extras.emojiDataPath = registered.server_emoji_data_url ? pathOf(registered.server_emoji_data_url) : null;
  extras.realmEmoji = registered.realm_emoji || {};
  const realm = Object.fromEntries(Object.entries(registered).filter(([name]) => name.startsWith("realm_")));
  extras.permissions = new Permissions(realm, registered.realm_user_groups || [], registered.user_id);
}

export function applyExtrasEvent(event) {
  if (event.type === "realm_emoji" && event.op === "update") extras.realmEmoji = event.realm_emoji;
  else extras.permissions.apply(event);
}
