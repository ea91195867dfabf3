// Whether this person may move or resolve topics, from /register's realm settings, user
// groups and the channel's own settings: the checks the server makes (actions/messages/
// message_edit.py), so menus offer only what will work. Pure: `node --test`.

// A group setting is a group id or {direct_members, direct_subgroups}.
export function inGroupSetting(setting, userId, groups) {
  if (setting === undefined || setting === null) return false;
  if (typeof setting === "number") return inGroup(setting, userId, groups, new Set());
  if ((setting.direct_members || []).includes(userId)) return true;
  return (setting.direct_subgroups || []).some((id) => inGroup(id, userId, groups, new Set()));
}

function inGroup(groupId, userId, groups, seen) {
  if (seen.has(groupId)) return false;
  seen.add(groupId);
  const group = groups.get(groupId);
  if (!group || group.deactivated) return false;
  if (group.members.includes(userId)) return true;
  return (group.direct_subgroup_ids || []).some((id) => inGroup(id, userId, groups, seen));
}

export class Permissions {
  // realm: the register object's realm_* settings; groups: realm_user_groups
  constructor(realm, groups, userId) {
    this.realm = realm;
    this.groups = new Map((groups || []).map((group) => [group.id, group]));
    this.userId = userId;
  }

  allowed(realmSetting, channel, channelSetting) {
    return (
      inGroupSetting(this.realm[`realm_${realmSetting}`], this.userId, this.groups) ||
      Boolean(channel && inGroupSetting(channel[channelSetting], this.userId, this.groups))
    );
  }

  canResolve(channel) {
    return this.allowed("can_resolve_topics_group", channel, "can_resolve_topics_group");
  }

  canMoveTopic(channel) {
    return this.allowed(
      "can_move_messages_between_topics_group",
      channel,
      "can_move_messages_within_channel_group",
    );
  }

  canMoveChannel(channel) {
    return this.allowed(
      "can_move_messages_between_channels_group",
      channel,
      "can_move_messages_out_of_channel_group",
    );
  }

  // Channels, as the server decides (actions/channels/subscriptions.py, channel_access.py).
  // `me` is this person's user object (role 100 owner ... 600 guest).
  inChannelSetting(channel, ...settings) {
    return settings.some((name) => inGroupSetting(channel?.[name], this.userId, this.groups));
  }

  // May read the channel and join it by themselves.
  canSubscribe(me, channel, subscribed) {
    if (subscribed || channel.is_web_public) return true;
    if (!channel.invite_only && me.role !== 600) return true;
    return this.inChannelSetting(channel, "can_add_subscribers_group", "can_subscribe_group");
  }

  canAddSubscribers(me, channel, subscribed) {
    if (me.role <= 200) return true;
    if (this.inChannelSetting(channel, "can_add_subscribers_group", "can_administer_channel_group")) {
      return true;
    }
    if (!this.canSubscribe(me, channel, subscribed)) return false;
    return this.realmAllows(me, "can_add_subscribers_group");
  }

  canRemoveSubscribers(me, channel) {
    if (me.role <= 200) return true;
    return this.inChannelSetting(channel, "can_remove_subscribers_group", "can_administer_channel_group");
  }

  // Guests have no permission whose setting may not be "everyone" (the server's rule; none
  // of the channel settings asked here may be).
  realmAllows(me, setting) {
    if (me.role === 600) return false;
    return inGroupSetting(this.realm[`realm_${setting}`], this.userId, this.groups);
  }

  canCreateChannel(me, invite_only) {
    const setting = invite_only ? "can_create_private_channel_group" : "can_create_public_channel_group";
    return this.realmAllows(me, setting);
  }

  // A realm event: realm settings and user groups change live.
  apply(event) {
    if (event.type === "realm" && event.op === "update_dict") {
      for (const [name, value] of Object.entries(event.data)) this.realm[`realm_${name}`] = value;
    } else if (event.type === "realm" && event.op === "update") {
      this.realm[`realm_${event.property}`] = event.value;
    } else if (event.type === "user_group") this.applyGroup(event);
  }

  applyGroup(event) {
    const group = this.groups.get(event.group_id);
    if (event.op === "add") this.groups.set(event.group.id, event.group);
    else if (event.op === "remove") this.groups.delete(event.group_id);
    else if (!group) return;
    else if (event.op === "add_members") group.members = [...group.members, ...event.user_ids];
    else if (event.op === "remove_members") {
      group.members = group.members.filter((id) => !event.user_ids.includes(id));
    } else if (event.op === "add_subgroups") {
      group.direct_subgroup_ids = [...(group.direct_subgroup_ids || []), ...event.direct_subgroup_ids];
    } else if (event.op === "remove_subgroups") {
      group.direct_subgroup_ids = (group.direct_subgroup_ids || []).filter(
        (id) => !event.direct_subgroup_ids.includes(id),
      );
    } else if (event.op === "update") Object.assign(group, event.data);
  }
}

// Zulip's resolved-topic prefix.
export const RESOLVED_PREFIX = "✔ ";

export const isResolved = (topic) => topic.startsWith(RESOLVED_PREFIX);

export function toggledResolved(topic) {
  return isResolved(topic) ? topic.slice(RESOLVED_PREFIX.length) : RESOLVED_PREFIX + topic;
}
