// node --test: settings, statuses and profile fields as the web client keeps and shows them.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  FIELD_TYPES,
  UserInfo,
  emojiText,
  fieldDisplay,
  localTime,
  roleName,
  themeClass,
  visibleEmail,
} from "../../teamchat/web/static/js/user_info.js";

function fresh() {
  return new UserInfo({
    user_settings: { color_scheme: 1, enable_sounds: true },
    user_status: { 5: { status_text: "Lunch", emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" } },
    custom_profile_fields: [
      { id: 2, type: FIELD_TYPES.URL, name: "Site", order: 2 },
      { id: 1, type: FIELD_TYPES.SHORT_TEXT, name: "Team", order: 1 },
    ],
    realm_default_external_accounts: { github: { url_pattern: "https://github.com/%(username)s" } },
  });
}

test("user_settings events change the setting, and the theme class follows color_scheme", () => {
  const info = fresh();
  assert.equal(themeClass(info.settings.color_scheme), "");
  assert.equal(info.apply({ type: "user_settings", op: "update", property: "color_scheme", value: 2 }), "settings");
  assert.equal(themeClass(info.settings.color_scheme), "theme-dark");
  assert.equal(themeClass(3), "theme-light");
  assert.equal(info.apply({ type: "message" }), null);
});

test("user_status events merge only the fields they carry; clearing both ends the status", () => {
  const info = fresh();
  assert.deepEqual(info.status(5), { text: "Lunch", emoji: "🚗" });
  info.apply({ type: "user_status", user_id: 5, status_text: "Back soon" });
  assert.deepEqual(info.status(5), { text: "Back soon", emoji: "🚗" });
  info.apply({ type: "user_status", user_id: 5, status_text: "", emoji_name: "", emoji_code: "" });
  assert.equal(info.status(5), null);
  info.apply({ type: "user_status", user_id: 6, away: true });
  assert.equal(info.status(6), null); // away alone shows nothing
  assert.equal(emojiText({ emoji_name: "party", emoji_code: "12", reaction_type: "realm_emoji" }), ":party:");
  assert.equal(emojiText({ emoji_name: "tech", emoji_code: "1f469-200d-1f4bb" }), "👩‍💻");
});

test("profile fields come in their order and are replaced by custom_profile_fields events", () => {
  const info = fresh();
  assert.deepEqual(info.fields.map((f) => f.name), ["Team", "Site"]);
  info.apply({ type: "custom_profile_fields", fields: [{ id: 3, type: 1, name: "Desk", order: 1 }] });
  assert.deepEqual(info.fields.map((f) => f.name), ["Desk"]);
});

test("field values: links only for http(s), users, dates, options, external accounts", () => {
  const url = { type: FIELD_TYPES.URL };
  assert.deepEqual(fieldDisplay(url, { value: "https://example.com/a" }), {
    kind: "link",
    text: "https://example.com/a",
    href: "https://example.com/a",
  });
  assert.deepEqual(fieldDisplay(url, { value: "javascript:alert(1)" }), { kind: "text", text: "javascript:alert(1)" });
  assert.equal(fieldDisplay(url, { value: "" }), null);
  assert.equal(fieldDisplay(url, undefined), null);
  assert.deepEqual(fieldDisplay({ type: FIELD_TYPES.USER }, { value: "[4, 7]" }), { kind: "users", userIds: [4, 7] });
  assert.deepEqual(fieldDisplay({ type: FIELD_TYPES.DATE }, { value: "2024-03-09" }), {
    kind: "text",
    text: "March 9, 2024",
  });
  const select = { type: FIELD_TYPES.SELECT, field_data: JSON.stringify({ 0: { text: "Red", order: "1" } }) };
  assert.deepEqual(fieldDisplay(select, { value: "0" }), { kind: "text", text: "Red" });
  const github = { type: FIELD_TYPES.EXTERNAL_ACCOUNT, field_data: JSON.stringify({ subtype: "github" }) };
  const accounts = { github: { url_pattern: "https://github.com/%(username)s" } };
  assert.deepEqual(fieldDisplay(github, { value: "ada" }, accounts), {
    kind: "link",
    text: "ada",
    href: "https://github.com/ada",
  });
  assert.deepEqual(fieldDisplay({ type: FIELD_TYPES.LONG_TEXT }, { value: "*hi*", rendered_value: "<p><em>hi</em></p>" }), {
    kind: "html",
    html: "<p><em>hi</em></p>",
  });
});

test("local time, visible email and role", () => {
  const noon = new Date(Date.UTC(2024, 0, 15, 12, 5));
  assert.equal(localTime("Asia/Tokyo", noon, "en-US"), "9:05 PM");
  assert.equal(localTime("", noon), "");
  assert.equal(localTime("Not/AZone", noon), "");
  assert.equal(visibleEmail({ user_id: 3, email: "user3@chat.example", delivery_email: null }, "chat.example"), "");
  assert.equal(visibleEmail({ user_id: 3, email: "user3@chat.example", delivery_email: "a@b.c" }, "chat.example"), "a@b.c");
  assert.equal(visibleEmail({ user_id: 3, email: "ada@b.c" }, "chat.example"), "ada@b.c");
  assert.equal(roleName({ role: 200 }), "Administrator");
  assert.equal(roleName({ role: 400, is_bot: true }), "Bot");
});
