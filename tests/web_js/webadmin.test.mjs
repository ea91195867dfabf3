// node --test: the Organization area's model follows realm, realm_user, stream, emoji and
// linkifier events; privacy and permission choices map to and from the API's fields.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  OrgModel,
  assignableRoles,
  describeGroupValue,
  groupChoices,
  isAdmin,
  privacyOf,
  privacyParams,
  roleName,
} from "../../teamchat/web/static/js/org.js";
import { State } from "../../teamchat/web/static/js/state.js";

const GROUPS = [
  { id: 1, name: "role:owners", is_system_group: true },
  { id: 2, name: "role:administrators", is_system_group: true },
  { id: 5, name: "role:members", is_system_group: true },
  { id: 6, name: "role:everyone", is_system_group: true },
  { id: 7, name: "role:internet", is_system_group: true },
  { id: 8, name: "role:nobody", is_system_group: true },
  { id: 9, name: "team", is_system_group: false },
];

function fresh() {
  return new OrgModel({
    user_id: 1,
    realm_name: "Org",
    realm_description: "<p>Old</p>",
    realm_users: [
      { user_id: 1, full_name: "Ada", role: 200, is_active: true },
      { user_id: 2, full_name: "Bob", role: 400, is_active: true },
    ],
    realm_non_active_users: [{ user_id: 3, full_name: "Cy", role: 400, is_active: false }],
    streams: [{ stream_id: 10, name: "b", invite_only: false, history_public_to_subscribers: true }],
    realm_user_groups: GROUPS,
    realm_emoji: { 1: { id: "1", name: "old", deactivated: true } },
    realm_linkifiers: [],
  });
}

test("roles: names, who is an administrator, only owners deal with owners", () => {
  assert.equal(roleName(300), "Moderator");
  assert.ok(isAdmin({ role: 100 }) && isAdmin({ role: 200 }) && !isAdmin({ role: 300 }));
  assert.ok(!isAdmin(undefined));
  assert.deepEqual(
    assignableRoles({ role: 200 }).map((role) => role.value),
    [200, 300, 400, 600],
  );
  assert.equal(assignableRoles({ role: 100 })[0].value, 100);
});

test("users: active and deactivated follow realm_user events, roles keep the flags in step", () => {
  const model = fresh();
  assert.deepEqual(model.sortedUsers(false).map((user) => user.full_name), ["Cy"]);
  assert.equal(model.apply({ type: "realm_user", op: "update", person: { user_id: 2, role: 200 } }), "users");
  assert.equal(model.users.get(2).is_admin, true);
  model.apply({ type: "realm_user", op: "update", person: { user_id: 2, is_active: false } });
  model.apply({ type: "realm_user", op: "update", person: { user_id: 3, is_active: true } });
  assert.deepEqual(model.sortedUsers(false).map((user) => user.full_name), ["Bob"]);
  assert.deepEqual(model.sortedUsers(true).map((user) => user.full_name), ["Ada", "Cy"]);
  model.apply({ type: "realm_user", op: "add", person: { user_id: 4, full_name: "Dee", role: 400 } });
  assert.equal(model.users.get(4).is_active, true);
});

test("streams: created, updated (privacy comes with its companions) and deleted", () => {
  const model = fresh();
  model.apply({ type: "stream", op: "create", streams: [{ stream_id: 11, name: "a" }] });
  assert.deepEqual(model.sortedStreams().map((stream) => stream.name), ["a", "b"]);
  model.apply({ type: "stream", op: "update", stream_id: 10, property: "name", value: "c" });
  model.apply({
    type: "stream",
    op: "update",
    stream_id: 10,
    property: "invite_only",
    value: true,
    history_public_to_subscribers: false,
    is_web_public: false,
  });
  assert.equal(privacyOf(model.streams.get(10)), "private-protected");
  model.apply({ type: "stream", op: "delete", streams: [{ stream_id: 11 }] });
  assert.deepEqual(model.sortedStreams().map((stream) => stream.name), ["c"]);
  assert.equal(model.apply({ type: "stream", op: "update", stream_id: 99, property: "name", value: "x" }), "");
});

test("realm, emoji and linkifier events replace what the area shows", () => {
  const model = fresh();
  assert.equal(model.apply({ type: "realm", op: "update", property: "name", value: "New" }), "profile");
  model.apply({ type: "realm", op: "update_dict", property: "default", data: { description: "<p>D</p>" } });
  assert.deepEqual([model.realm.name, model.realm.description], ["New", "<p>D</p>"]);
  assert.deepEqual(model.activeEmoji(), []);
  model.apply({ type: "realm_emoji", op: "update", realm_emoji: { 2: { id: "2", name: "new", deactivated: false } } });
  assert.deepEqual(model.activeEmoji().map((emoji) => emoji.name), ["new"]);
  model.apply({ type: "realm_linkifiers", realm_linkifiers: [{ id: 1, pattern: "p", url_template: "u" }] });
  assert.equal(model.linkifiers.length, 1);
  assert.equal(model.apply({ type: "invites_changed" }), "invites");
  assert.equal(model.apply({ type: "heartbeat" }), "");
});

test("privacy choices round-trip through the API's fields", () => {
  for (const privacy of ["public", "private-shared", "private-protected", "web-public"]) {
    const params = privacyParams(privacy);
    const stream = {
      invite_only: params.is_private,
      is_web_public: params.is_web_public,
      history_public_to_subscribers: params.history_public_to_subscribers,
    };
    assert.equal(privacyOf(stream), privacy);
  }
});

test("permission choices follow the server's rules; values read in words", () => {
  const sending = { allow_everyone_group: true, allow_nobody_group: true, allow_internet_group: false };
  assert.deepEqual(
    groupChoices(sending, GROUPS).map((choice) => choice.label),
    ["Everyone, including guests", "Members", "Administrators", "Owners", "Nobody"],
  );
  const admin = { allow_everyone_group: false, allow_nobody_group: true, allowed_system_groups: [] };
  assert.ok(!groupChoices(admin, GROUPS).some((choice) => choice.id === 6));
  const only = { allowed_system_groups: ["role:members"] };
  assert.deepEqual(groupChoices(only, GROUPS).map((choice) => choice.id), [5]);
  const names = { 1: "Ada" };
  assert.equal(describeGroupValue(2, GROUPS, (id) => names[id]), "Administrators");
  assert.equal(
    describeGroupValue({ direct_members: [1], direct_subgroups: [9] }, GROUPS, (id) => names[id]),
    "Ada, team",
  );
  assert.equal(describeGroupValue({ direct_members: [], direct_subgroups: [] }, GROUPS, String), "Nobody");
});

test("the left pane's channels follow a rename and an archiving", () => {
  const state = new State({
    user_id: 1,
    realm_users: [],
    subscriptions: [{ stream_id: 10, name: "old", description: "" }],
  });
  assert.ok(state.apply({ type: "stream", op: "update", stream_id: 10, property: "name", value: "new" }));
  assert.equal(state.streamName(10), "new");
  state.apply({
    type: "stream",
    op: "update",
    stream_id: 10,
    property: "description",
    value: "*d*",
    rendered_description: "<p><em>d</em></p>",
  });
  assert.equal(state.channels.get(10).rendered_description, "<p><em>d</em></p>");
  assert.ok(!state.apply({ type: "stream", op: "update", stream_id: 99, property: "name", value: "x" }));
  assert.ok(state.apply({ type: "stream", op: "delete", streams: [{ stream_id: 10 }] }));
  assert.equal(state.channels.size, 0);
});
