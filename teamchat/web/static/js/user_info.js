// What the client knows about people beyond their names, kept current by events: this
// person's settings (user_settings), everyone's status (user_status) and the organization's
// custom profile fields. Plus the pure helpers the settings and profile card draw with.

export const COLOR_SCHEMES = { automatic: 1, dark: 2, light: 3 }; // Zulip's color_scheme values

export const ROLE_NAMES = { 100: "Owner", 200: "Administrator", 300: "Moderator", 400: "Member", 600: "Guest" };

// Zulip's custom profile field types.
export const FIELD_TYPES = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
};

const STATUS_FIELDS = ["status_text", "emoji_name", "emoji_code", "reaction_type", "away"];

export class UserInfo {
  constructor(register) {
    this.settings = { ...(register.user_settings || {}) };
    this.statuses = new Map();
    for (const [id, status] of Object.entries(register.user_status || {})) {
      this.statuses.set(Number(id), { ...status });
    }
    this.setFields(register.custom_profile_fields || []);
    this.externalAccounts = register.realm_default_external_accounts || {};
  }

  setFields(fields) {
    this.fields = [...fields].sort((a, b) => a.order - b.order);
  }

  // Apply one event: "settings", "status" or "fields" when it changed those, else null.
  apply(event) {
    if (event.type === "user_settings" && event.op === "update") {
      this.settings[event.property] = event.value;
      return "settings";
    }
    if (event.type === "user_status") {
      const status = { ...(this.statuses.get(event.user_id) || {}) };
      for (const name of STATUS_FIELDS) if (event[name] !== undefined) status[name] = event[name];
      this.statuses.set(event.user_id, status);
      return "status";
    }
    if (event.type === "custom_profile_fields") {
      this.setFields(event.fields || []);
      return "fields";
    }
    return null;
  }

  // {text, emoji} of a person's status (emoji a character, or ":name:" for custom emoji), or
  // null when they have none.
  status(userId) {
    const status = this.statuses.get(userId);
    if (!status) return null;
    const text = status.status_text || "";
    const emoji = status.emoji_name ? emojiText(status) : "";
    return text || emoji ? { text, emoji } : null;
  }
}

// A Unicode emoji's character from Zulip's emoji_code ("1f697", "1f469-200d-1f4bb").
export function emojiText({ emoji_name, emoji_code, reaction_type }) {
  if ((reaction_type || "unicode_emoji") === "unicode_emoji" && /^[0-9a-f]+(-[0-9a-f]+)*$/.test(emoji_code || "")) {
    try {
      return String.fromCodePoint(...emoji_code.split("-").map((hex) => parseInt(hex, 16)));
    } catch {
      // fall through to the name
    }
  }
  return `:${emoji_name}:`;
}

// The page's theme class for a color_scheme value ("" follows the system).
export function themeClass(colorScheme) {
  if (colorScheme === COLOR_SCHEMES.dark) return "theme-dark";
  if (colorScheme === COLOR_SCHEMES.light) return "theme-light";
  return "";
}

// The time now where the person is ("3:04 PM"), or "" without a (known) time zone.
export function localTime(timezone, now = new Date(), locale = undefined) {
  if (!timezone) return "";
  try {
    return new Intl.DateTimeFormat(locale, { timeZone: timezone, hour: "numeric", minute: "2-digit" }).format(now);
  } catch {
    return "";
  }
}

// The email a viewer may see: the real address when the server shares it, else the public
// one unless it is the server's stand-in (user123@host).
export function visibleEmail(user, realmHost) {
  if (user.delivery_email) return user.delivery_email;
  if (!user.email || user.email === `user${user.user_id}@${realmHost}`) return "";
  return user.email;
}

export function roleName(user) {
  if (user.is_bot) return "Bot";
  return ROLE_NAMES[user.role] || "Member";
}

function safeUrl(text) {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : "";
  } catch {
    return "";
  }
}

function parseJson(text, fallback) {
  try {
    return typeof text === "string" ? JSON.parse(text) : (text ?? fallback);
  } catch {
    return fallback;
  }
}

// How to show one custom profile field's value: {kind: "text", text} | {kind: "link", text,
// href} | {kind: "users", userIds} | {kind: "html", html} (the server's rendered value), or
// null when the person left it empty.
export function fieldDisplay(field, entry, externalAccounts = {}) {
  const value = entry?.value;
  if (value === undefined || value === null || value === "") return null;
  switch (field.type) {
    case FIELD_TYPES.LONG_TEXT:
      return entry.rendered_value ? { kind: "html", html: entry.rendered_value } : { kind: "text", text: value };
    case FIELD_TYPES.SELECT: {
      const option = parseJson(field.field_data, {})[value];
      return { kind: "text", text: option?.text ?? value };
    }
    case FIELD_TYPES.DATE: {
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
      if (!match) return { kind: "text", text: value };
      const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
      const text = date.toLocaleDateString(undefined, { timeZone: "UTC", year: "numeric", month: "long", day: "numeric" });
      return { kind: "text", text };
    }
    case FIELD_TYPES.URL: {
      const href = safeUrl(value);
      return href ? { kind: "link", text: value, href } : { kind: "text", text: value };
    }
    case FIELD_TYPES.USER: {
      const userIds = parseJson(value, []).filter((id) => Number.isInteger(id));
      return userIds.length ? { kind: "users", userIds } : null;
    }
    case FIELD_TYPES.EXTERNAL_ACCOUNT: {
      const data = parseJson(field.field_data, {});
      const pattern = data.url_pattern || externalAccounts[data.subtype]?.url_pattern || "";
      const href = pattern ? safeUrl(pattern.replace("%(username)s", encodeURIComponent(value))) : "";
      return href ? { kind: "link", text: value, href } : { kind: "text", text: value };
    }
    default:
      return { kind: "text", text: String(value) };
  }
}
