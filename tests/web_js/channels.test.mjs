// node --test: the channel directory follows subscription, stream and default_streams events;
// mentions in a message being written; who may subscribe, add and remove subscribers, create.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ChannelDirectory, mentionedUserIds } from "../../teamchat/web/static/js/channels.js";
import { Permissions } from "../../teamchat/web/static/js/permissions.js";
import { State } from "../../teamchat/web/static/js/state.js";

const ME = 1;

function register() {
  return {
    user_id: ME,
    realm_name: "Test",
    realm_users: [
      { user_id: 1, full_name: "Me Myself", email: "me@example.com", role: 400 },
      { user_id: 2, full_name: "Bo Other", email: "bo@example.com", role: 400 },
      { user_id: 3, full_name: "Cy Third", email: "cy@example.com", role: 400, is_active: true },
      { user_id: 4, full_name: "Cy Third", email: "cy2@example.com", role: 400 },
    ],
    subscriptions: [{ stream_id: 10, name: "general", subscribers: [1, 2], invite_only: false }],
    unsubscribed: [{ stream_id: 11, name: "old", subscribers: [2], invite_only: false }],
    never_subscribed: [
      { stream_id: 12, name: "Zebra", description: "stripes", subscribers: [], invite_only: false },
      { stream_id: 13, name: "archived", is_archived: true, subscribers: [] },
    ],
    realm_default_streams: [10],
  };
}

test("the directory knows every visible channel, its subscribers and the defaults", () => {
  const directory = new ChannelDirectory(register());
  assert.deepEqual(
    directory.list().map((s) => s.name),
    ["general", "old", "Zebra"],
  );
  assert.deepEqual(
    directory.list("STRIPES").map((s) => s.name),
    ["Zebra"],
  );
  assert.equal(directory.isSubscribed(10), true);
  assert.equal(directory.isSubscribed(11), false);
  assert.equal(directory.count(10), 2);
  assert.equal(directory.hasSubscriber(11, 2), true);
  assert.deepEqual([...directory.defaults], [10]);
  assert.equal(directory.byName("zebra").stream_id, 12);
});

test("subscription and stream events keep it current", () => {
  const directory = new ChannelDirectory(register());
  directory.apply({ type: "subscription", op: "add", subscriptions: [{ stream_id: 12, name: "Zebra", subscribers: [1] }] });
  assert.equal(directory.isSubscribed(12), true);
  assert.equal(directory.count(12), 1);
  directory.apply({ type: "subscription", op: "peer_add", stream_ids: [12, 11], user_ids: [3] });
  assert.deepEqual(directory.subscriberIds(12).sort(), [1, 3]);
  assert.equal(directory.count(11), 2);
  directory.apply({ type: "subscription", op: "peer_remove", stream_ids: [12], user_ids: [3] });
  assert.deepEqual(directory.subscriberIds(12), [1]);
  directory.apply({ type: "subscription", op: "remove", subscriptions: [{ stream_id: 10, name: "general" }] });
  assert.equal(directory.isSubscribed(10), false);
  assert.equal(directory.count(10), 1);
  directory.apply({ type: "stream", op: "create", streams: [{ stream_id: 20, name: "new", subscriber_count: 4 }] });
  assert.equal(directory.count(20), 4); // no list yet: the stream object's count
  directory.apply({ type: "stream", op: "update", stream_id: 20, property: "name", value: "renamed" });
  assert.equal(directory.get(20).name, "renamed");
  directory.apply({ type: "stream", op: "delete", streams: [{ stream_id: 20 }] });
  assert.equal(directory.get(20), undefined);
  directory.apply({ type: "default_streams", default_streams: [12] });
  assert.deepEqual([...directory.defaults], [12]);
});

test("State names a channel it is not subscribed to", () => {
  const state = new State(register());
  assert.equal(state.streamName(12), "Zebra");
  assert.equal(state.streamName(99), "channel 99");
  assert.equal(state.apply({ type: "default_streams", default_streams: [] }), true);
  state.apply({ type: "subscription", op: "add", subscriptions: [{ stream_id: 11, name: "old", subscribers: [2] }] });
  assert.equal(state.directory.hasSubscriber(11, ME), true);
});

test("mentions: names, name|id, not silent ones nor ambiguous names", () => {
  const users = new State(register()).users;
  assert.deepEqual(mentionedUserIds("hi @**Bo Other** and @**bo other**", users), [2]);
  assert.deepEqual(mentionedUserIds("@_**Bo Other** silent", users), []);
  assert.deepEqual(mentionedUserIds("@**Cy Third**", users), []); // two people share the name
  assert.deepEqual(mentionedUserIds("@**Cy Third|4**", users), [4]);
  assert.deepEqual(mentionedUserIds("@**all** @**nobody here**", users), []);
  assert.deepEqual(mentionedUserIds("mail me@**Bo Other** x.@**Bo Other**", users), []);
  assert.deepEqual(mentionedUserIds("(@**Bo Other**)", users), [2]);
});

const GROUPS = [
  { id: 1, name: "role:owners", members: [], direct_subgroup_ids: [] },
  { id: 2, name: "role:administrators", members: [9], direct_subgroup_ids: [1] },
  { id: 5, name: "role:members", members: [1], direct_subgroup_ids: [2] },
  { id: 8, name: "role:nobody", members: [], direct_subgroup_ids: [] },
];

function perms(realm = {}) {
  return new Permissions(
    {
      realm_can_add_subscribers_group: 5,
      realm_can_create_public_channel_group: 5,
      realm_can_create_private_channel_group: 2,
      ...realm,
    },
    GROUPS,
    ME,
  );
}

test("who may subscribe themselves, add and remove subscribers, and create channels", () => {
  const member = { role: 400 };
  const guest = { role: 600 };
  const admin = { role: 200 };
  const open = { invite_only: false, can_remove_subscribers_group: 2, can_administer_channel_group: 8 };
  const closed = { invite_only: true, can_subscribe_group: 8, can_add_subscribers_group: 8 };
  assert.equal(perms().canSubscribe(member, open, false), true);
  assert.equal(perms().canSubscribe(guest, open, false), false);
  assert.equal(perms().canSubscribe(member, closed, false), false);
  assert.equal(perms().canSubscribe(member, { ...closed, can_subscribe_group: { direct_members: [ME], direct_subgroups: [] } }, false), true);
  assert.equal(perms().canAddSubscribers(member, open, false), true);
  assert.equal(perms({ realm_can_add_subscribers_group: 2 }).canAddSubscribers(member, open, true), false);
  assert.equal(perms().canAddSubscribers(member, closed, false), false);
  assert.equal(perms().canAddSubscribers(admin, closed, false), true);
  assert.equal(perms().canAddSubscribers(guest, open, true), false);
  assert.equal(perms().canRemoveSubscribers(member, open), false);
  assert.equal(perms().canRemoveSubscribers(admin, open), true);
  const administered = { ...open, can_administer_channel_group: { direct_members: [ME], direct_subgroups: [] } };
  assert.equal(perms().canRemoveSubscribers(member, administered), true);
  assert.equal(perms().canAddSubscribers(member, { ...closed, ...administered, invite_only: true }, false), true);
  assert.equal(perms().canCreateChannel(member, false), true);
  assert.equal(perms().canCreateChannel(member, true), false);
  assert.equal(perms().canCreateChannel(guest, false), false);
});
