// Emoji for the reaction picker: the server's Unicode emoji (the `code_to_names` file that
// register's server_emoji_data_url names) and the organization's custom emoji, found by name,
// and the person's frequently used ones, counted from their own recent reactions and kept in
// this browser's localStorage. Pure apart from the storage object passed in: `node --test`.

const RECENT_LIMIT = 60; // reactions remembered
export const FREQUENT_SHOWN = 16;

// [{name, aliases, code, type, url?}]: custom emoji first (by name), then Unicode: faces first,
// then people and pictographs, then the older symbols and keycaps, by code point within each.
export function emojiList(codeToNames, realmEmoji = {}) {
  const custom = Object.values(realmEmoji)
    .filter((emoji) => !emoji.deactivated)
    .map((emoji) => ({
      name: emoji.name,
      aliases: [],
      code: String(emoji.id),
      type: "realm_emoji",
      url: emoji.source_url,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const unicode = Object.entries(codeToNames)
    .filter(([, names]) => names.length)
    .map(([code, names]) => ({ name: names[0], aliases: names.slice(1), code, type: "unicode_emoji" }))
    .sort((a, b) => blockRank(a.code) - blockRank(b.code) || compareCodes(a.code, b.code));
  return [...custom, ...unicode];
}

const BLOCKS = [
  [0x1f600, 0x1f64f], // emoticons
  [0x1f900, 0x1faff], // supplemental symbols and pictographs
  [0x1f300, 0x1f5ff], // miscellaneous symbols and pictographs
  [0x1f680, 0x1f6ff], // transport and map
  [0x1f000, 0x1ffff],
];

function blockRank(code) {
  const first = parseInt(code.split("-")[0], 16);
  const rank = BLOCKS.findIndex(([low, high]) => first >= low && first <= high);
  return rank === -1 ? BLOCKS.length : rank;
}

// The characters to draw an emoji code with: U+FE0F (emoji presentation) after each older
// symbol and keycap base, which the server's codes leave out (fully-qualified emoji again).
export function emojiChars(code) {
  const points = code.split("-").map((hex) => parseInt(hex, 16));
  if (points.some((point) => !Number.isInteger(point) || point < 0 || point > 0x10ffff)) return null;
  const joiners = new Set([0x200d, 0x20e3, 0xfe0f]);
  const chars = [];
  points.forEach((point, i) => {
    chars.push(point);
    const older = point < 0x1f000 && !joiners.has(point) && (point >= 0xa9 || points[i + 1] === 0x20e3);
    if (older && points[i + 1] !== 0xfe0f) chars.push(0xfe0f);
  });
  return String.fromCodePoint(...chars);
}

function compareCodes(a, b) {
  const x = a.split("-").map((hex) => parseInt(hex, 16));
  const y = b.split("-").map((hex) => parseInt(hex, 16));
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return x.length - y.length;
}

// How well one name matches the query: 0 exact, 1 prefix, 2 a word's prefix, 3 inside; null not.
function nameRank(name, query) {
  if (name === query) return 0;
  if (name.startsWith(query)) return 1;
  if (name.split("_").some((word) => word.startsWith(query))) return 2;
  return name.includes(query) ? 3 : null;
}

// The emoji whose name or an alias matches (spaces count as underscores), best matches first.
export function searchEmoji(list, query) {
  const wanted = query.trim().toLowerCase().replace(/^:|:$/g, "").replace(/\s+/g, "_");
  if (!wanted) return list;
  const found = [];
  list.forEach((emoji, index) => {
    const ranks = [emoji.name, ...emoji.aliases]
      .map((name) => nameRank(name, wanted))
      .filter((rank) => rank !== null);
    if (ranks.length) found.push({ emoji, rank: Math.min(...ranks), index });
  });
  found.sort((a, b) => a.rank - b.rank || a.index - b.index);
  return found.map((item) => item.emoji);
}

export const emojiKey = (emoji) => `${emoji.type}:${emoji.code}`;

// The person's own reactions, most recent first, in localStorage under their user id.
export class FrequentEmoji {
  constructor(storage, userId) {
    this.storage = storage;
    this.key = `teamchat.emoji.recent.${userId}`;
  }

  recent() {
    try {
      const stored = JSON.parse(this.storage?.getItem(this.key) || "[]");
      return Array.isArray(stored) ? stored.filter((key) => typeof key === "string") : [];
    } catch {
      return [];
    }
  }

  note(emoji) {
    const recent = [emojiKey(emoji), ...this.recent()].slice(0, RECENT_LIMIT);
    try {
      this.storage?.setItem(this.key, JSON.stringify(recent));
    } catch {
      // storage full or disabled: the list just is not remembered
    }
  }

  // The most used of the recent reactions (ties: the more recent first) that still exist.
  top(list, count = FREQUENT_SHOWN) {
    const byKey = new Map(list.map((emoji) => [emojiKey(emoji), emoji]));
    const uses = new Map();
    this.recent().forEach((key, index) => {
      const seen = uses.get(key);
      if (seen) seen.count += 1;
      else uses.set(key, { key, count: 1, first: index });
    });
    return [...uses.values()]
      .filter((use) => byKey.has(use.key))
      .sort((a, b) => b.count - a.count || a.first - b.first)
      .slice(0, count)
      .map((use) => byKey.get(use.key));
  }
}
