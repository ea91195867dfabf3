// What the compose box's autocomplete offers, as pure functions (no DOM): which token the
// caret is in (`@person`, `#channel`, `#**channel>topic`, `:emoji`), the ranked matches for
// it, and Zulip's markup that a choice inserts.

const MAX_ITEMS = 8;

// The token being typed just before `caret` in `text`, or null.
// {kind: "mention"|"channel"|"topic"|"emoji", query, start, silent?, channel?}
export function findToken(text, caret) {
  const before = text.slice(0, caret);
  let match = /(?:^|[\s(\[{>"'])(#\*\*([^*\n>]+)(?:\*\*)?>([^*\n]*))$/.exec(before);
  if (match) {
    return { kind: "topic", channel: match[2], query: match[3], start: caret - match[1].length };
  }
  match = /(?:^|[\s(\[{>"'])(#(?:\*\*)?([^\n#*>]{0,40}))$/.exec(before);
  if (match) return { kind: "channel", query: match[2], start: caret - match[1].length };
  match = /(?:^|[\s(\[{>"'])(@(_?)(?:\*\*?)?([^\n@*]{0,40}))$/.exec(before);
  if (match && !/\s\s/.test(match[3]) && !/^\s/.test(match[3])) {
    return { kind: "mention", silent: match[2] === "_", query: match[3], start: caret - match[1].length };
  }
  match = /(?:^|[\s(\[{>"'])(:([a-z0-9_+-]{1,40}))$/i.exec(before);
  if (match) return { kind: "emoji", query: match[2].toLowerCase(), start: caret - match[1].length };
  return null;
}

// How well `name` matches `query`: 0 the whole name, 1 its start, 2 a word's start,
// 3 anywhere inside; null for no match. Case-insensitive.
export function matchRank(name, query) {
  const n = name.toLowerCase();
  const q = query.toLowerCase().trim();
  if (!q) return 1;
  if (n === q) return 0;
  if (n.startsWith(q)) return 1;
  if (n.split(/[\s_\-.]+/).some((word) => word.startsWith(q))) return 2;
  if (n.includes(q)) return 3;
  return null;
}

// Keep the items some of whose names match, best first (then by `order`, then by label).
function ranked(items, query, names, order = () => 0) {
  const scored = [];
  for (const item of items) {
    const ranks = names(item)
      .map((name) => matchRank(name, query))
      .filter((rank) => rank !== null);
    if (ranks.length) scored.push({ item, rank: Math.min(...ranks) });
  }
  scored.sort(
    (a, b) => a.rank - b.rank || order(a.item) - order(b.item) || a.item.label.localeCompare(b.item.label),
  );
  return scored.slice(0, MAX_ITEMS).map((entry) => entry.item);
}

// The wildcards Zulip offers where they may be used: in a channel all four, in a DM two.
export function wildcards(inChannel) {
  const all = [
    { name: "all", detail: inChannel ? "Notify channel" : "Notify recipients" },
    { name: "everyone", detail: inChannel ? "Notify channel" : "Notify recipients" },
  ];
  if (!inChannel) return all;
  return [...all, { name: "channel", detail: "Notify channel" }, { name: "topic", detail: "Notify topic" }];
}

// People, user groups and wildcards for `@query`.
// context: {users, groups, inChannel, wildcardsAllowed, recentIds (user id -> rank)}
export function mentionItems(query, silent, context) {
  const prefix = silent ? "@_" : "@";
  const people = context.users
    .filter((user) => user.is_active !== false)
    .map((user) => ({
      kind: "person",
      id: user.user_id,
      label: user.full_name,
      detail: user.is_bot ? "bot" : user.email,
      insert: `${prefix}**${user.full_name}|${user.user_id}** `,
    }));
  const groups = (context.groups || [])
    .filter((group) => !group.is_system_group && !group.deactivated)
    .map((group) => ({
      kind: "group",
      id: group.id,
      label: group.name,
      detail: group.description || "User group",
      insert: `${prefix}*${group.name}* `,
    }));
  const specials =
    context.wildcardsAllowed === false
      ? []
      : wildcards(context.inChannel).map((w) => ({
          kind: "wildcard",
          label: w.name,
          detail: w.detail,
          insert: `${prefix}**${w.name}** `,
        }));
  const recent = context.recentIds || new Map();
  const order = (item) => (item.kind === "person" ? (recent.get(item.id) ?? 1e9) : 2e9);
  const byName = (item) => (item.kind === "person" ? [item.label, item.detail] : [item.label]);
  return ranked([...people, ...groups, ...specials], query, byName, order);
}

// Subscribed channels for `#query`: `#**name**`.
export function channelItems(query, channels) {
  const items = channels.map((sub) => ({
    kind: "channel",
    id: sub.stream_id,
    label: sub.name,
    detail: sub.description || "",
    insert: `#**${sub.name}** `,
  }));
  return ranked(items, query, (item) => [item.label]);
}

// Known topics (most recent first) of `channel` for `#**channel>query`.
export function topicItems(query, channel, topics) {
  const items = topics.map((topic, index) => ({
    kind: "topic",
    label: topic,
    index,
    detail: "",
    insert: `#**${channel}>${topic}** `,
  }));
  return ranked(items, query, (item) => [item.label], (item) => item.index);
}

// Topic names for the compose box's topic field (most recent first).
export function topicChoices(query, topics) {
  const items = topics.map((topic, index) => ({ kind: "topic", label: topic, index, insert: topic }));
  return ranked(items, query, (item) => [item.label], (item) => item.index);
}

// Emoji for `:query`: Unicode ones by every name the server gives them, the realm's custom
// ones. codeToNames: {code: [name, ...aliases]}; realmEmoji: {id: {name, source_url, deactivated}}.
export function emojiItems(query, codeToNames, realmEmoji) {
  const items = [];
  for (const emoji of Object.values(realmEmoji || {})) {
    if (emoji.deactivated) continue;
    items.push({ kind: "emoji", label: emoji.name, imageUrl: emoji.source_url, insert: `:${emoji.name}: ` });
  }
  for (const [code, names] of Object.entries(codeToNames || {})) {
    for (const name of names) {
      items.push({ kind: "emoji", label: name, glyph: emojiGlyph(code), insert: `:${name}: ` });
    }
  }
  // A name matches at its start or a word's start (like Zulip), not anywhere inside.
  const scored = [];
  for (const item of items) {
    const rank = matchRank(item.label, query);
    if (rank !== null && rank < 3) scored.push({ item, rank });
  }
  scored.sort((a, b) => a.rank - b.rank || a.item.label.length - b.item.label.length || a.item.label.localeCompare(b.item.label));
  return scored.slice(0, MAX_ITEMS).map((entry) => entry.item);
}

// The character(s) of a Unicode emoji code like "1f44d" or "1f468-200d-1f4bb".
export function emojiGlyph(code) {
  try {
    return String.fromCodePoint(...code.split("-").map((hex) => parseInt(hex, 16)));
  } catch {
    return "";
  }
}

// Replace the token with the chosen item's markup; the new text and caret position.
export function applyChoice(text, caret, token, insert) {
  const after = text.slice(caret);
  const head = text.slice(0, token.start) + insert;
  const tail = insert.endsWith(" ") && after.startsWith(" ") ? after.slice(1) : after;
  return { text: head + tail, caret: head.length };
}

// The markdown Zulip inserts for an uploaded file: a link named after it (the server shows
// an image link as an inline preview).
export function uploadMarkdown(fileName, url) {
  const name = fileName.replace(/[[\]]/g, "").trim() || "file";
  return `[${name}](${url})`;
}

export function uploadPlaceholder(fileName) {
  return `[Uploading ${fileName.replace(/[[\]]/g, "")}…]()`;
}

// Zulip's text for a file larger than the server takes.
export function tooLarge(fileName, size, maxMib) {
  if (maxMib === undefined || maxMib === null || size <= maxMib * 1024 * 1024) return null;
  return `"${fileName}" is larger than the maximum file size for uploads (${maxMib} MiB).`;
}

// Recipients for the compose box's "To" search: channels and people; while writing to a direct
// message conversation, also that conversation with one more person (a group DM).
// Each item's value is the compose select's: "s:<stream id>" or "d:<sorted user ids>".
export function recipientItems(query, channels, users, dmIds = []) {
  const people = users.filter((user) => user.is_active !== false);
  const items = [
    ...channels.map((sub) => ({ label: `# ${sub.name}`, names: [sub.name], value: `s:${sub.stream_id}`, detail: "Channel" })),
    ...people.map((user) => ({
      label: user.full_name,
      names: [user.full_name, user.email],
      value: `d:${user.user_id}`,
      detail: user.email,
    })),
  ];
  if (dmIds.length) {
    for (const user of people) {
      if (dmIds.includes(user.user_id)) continue;
      const ids = [...dmIds, user.user_id].sort((a, b) => a - b);
      items.push({
        label: `+ ${user.full_name}`,
        names: [user.full_name, user.email],
        value: `d:${ids.join(",")}`,
        detail: "Add to this conversation",
        order: 1,
      });
    }
  }
  return ranked(items, query, (item) => item.names, (item) => item.order ?? 0);
}

// Whether `userId` is in a group-setting value (a group id, or {direct_members,
// direct_subgroups}); groups: id -> user group object of realm_user_groups.
export function inGroupSetting(setting, userId, groups) {
  if (setting === undefined || setting === null) return true;
  const seen = new Set();
  const inGroup = (id) => {
    if (seen.has(id)) return false;
    seen.add(id);
    const group = groups.get(id);
    return Boolean(group) && (group.members.includes(userId) || (group.direct_subgroup_ids || []).some(inGroup));
  };
  if (typeof setting === "number") return inGroup(setting);
  return setting.direct_members.includes(userId) || setting.direct_subgroups.some(inGroup);
}

// Zulip's threshold: in a channel of more subscribers, @all/@channel/@topic need the realm's
// can_mention_many_users_group.
export const WILDCARD_MENTION_THRESHOLD = 15;
